"""Helpers shared by the Python tests (and bench/): the exporter and probe
processes, network namespaces, exposition normalisation, the metric-name
catalogue of the lints, fixture generators. CTest puts tests/lib on
PYTHONPATH; by hand: PYTHONPATH=tests/lib python3 tests/e2e/golden_test.py."""
