# Installs the systemd unit and the exporter's config with its fleet nodes file (install(CODE) in
# deploy/CMakeLists.txt).
# It runs at install time, so the prefix of `cmake --install --prefix P` (or the configured
# CMAKE_INSTALL_PREFIX) decides, as for every other rule; DESTDIR is honoured by file(INSTALL).
# These two destinations do not follow the prefix alone:
#   prefix /usr   config /etc/fabric-ladder, unit /lib/systemd/system (Debian 12's unit
#                 directory, systemd.pc's systemdsystemunitdir): what the package ships
#   prefix P      config P/etc/fabric-ladder, unit P/lib/systemd/system (systemd also reads
#                 /usr/local/lib/systemd/system)
# An absolute CMAKE_INSTALL_SYSCONFDIR or FABRIC_SYSTEMD_UNIT_DIR at configure time wins.
# The unit in the repository names the packaged paths; here its ExecStart line is pointed at
# the binary and config this install puts in place.
#
# Inputs (set by the install(CODE) before this file): FABRIC_DEPLOY_DIR, FABRIC_STAGING_DIR,
# FABRIC_BINDIR, FABRIC_SYSCONFDIR, FABRIC_SYSTEMD_UNIT_DIR.

set(prefix "${CMAKE_INSTALL_PREFIX}")
if(IS_ABSOLUTE "${FABRIC_SYSCONFDIR}")
  set(etc "${FABRIC_SYSCONFDIR}")
elseif(prefix STREQUAL "/usr")
  set(etc "/etc")  # GNUInstallDirs' rule for CMAKE_INSTALL_FULL_SYSCONFDIR.
else()
  set(etc "${prefix}/${FABRIC_SYSCONFDIR}")
endif()
if(IS_ABSOLUTE "${FABRIC_BINDIR}")
  set(bindir "${FABRIC_BINDIR}")
else()
  set(bindir "${prefix}/${FABRIC_BINDIR}")
endif()
if(FABRIC_SYSTEMD_UNIT_DIR)
  set(unitdir "${FABRIC_SYSTEMD_UNIT_DIR}")
elseif(prefix STREQUAL "/usr")
  set(unitdir "/lib/systemd/system")
else()
  set(unitdir "${prefix}/lib/systemd/system")
endif()

set(packaged "ExecStart=/usr/bin/fabric_exporter --config.file=/etc/fabric-ladder/fabric_exporter.yml")
file(READ "${FABRIC_DEPLOY_DIR}/systemd/fabric-exporter.service" unit)
string(FIND "${unit}" "${packaged}\n" at)
if(at EQUAL -1)
  message(FATAL_ERROR "fabric-exporter.service has no line '${packaged}' to point at ${bindir}")
endif()
string(REPLACE "${packaged}"
       "ExecStart=${bindir}/fabric_exporter --config.file=${etc}/fabric-ladder/fabric_exporter.yml"
       unit "${unit}")
file(WRITE "${FABRIC_STAGING_DIR}/fabric-exporter.service" "${unit}")
file(INSTALL "${FABRIC_STAGING_DIR}/fabric-exporter.service" DESTINATION "${unitdir}")

# The config and the fleet's nodes file beside it (its fleet.nodes_file) are the operator's
# once installed: a second `cmake --install` keeps an edited one (the package's conffile
# handling does the same through dpkg).
foreach(name fabric_exporter.yml fleet.yml)
  set(config "${FABRIC_DEPLOY_DIR}/examples/${name}")
  set(installed "$ENV{DESTDIR}${etc}/fabric-ladder/${name}")
  if(EXISTS "${installed}")
    file(SHA256 "${config}" new)
    file(SHA256 "${installed}" old)
  endif()
  if(EXISTS "${installed}" AND NOT new STREQUAL old)
    message(STATUS "Keeping edited: ${installed} (the example is ${config})")
  else()
    file(INSTALL "${config}" DESTINATION "${etc}/fabric-ladder")
  endif()
endforeach()
