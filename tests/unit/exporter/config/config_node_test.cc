#include "exporter/config/config_node.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

// Runs `check` on a config parsed from `yaml` and returns the ConfigError
// message it threw ("" if none).
template <typename F>
std::string ErrorOf(const std::string& yaml, F check) {
  try {
    check(ConfigNode::LoadString(yaml, "test.yml"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigNodeTest, UnknownKeyNamesFileLineAndKeyPath) {
  std::string err = ErrorOf("web:\n  listen_address: ':9877'\n  lisen: 1\n", [](auto root) {
    root.ExpectMapWithKeys({"web"});
    root.Child("web").ExpectMapWithKeys({"listen_address"});
  });
  EXPECT_EQ(err.rfind("test.yml:3:3: key web.lisen: unknown key", 0), 0u) << err;
  EXPECT_NE(err.find("known here: listen_address"), std::string::npos);
}

TEST(ConfigNodeTest, WrongTypeNamesLineAndWhatWasFound) {
  std::string err =
      ErrorOf("a:\n  enabled: yes please\n", [](auto root) { root.Child("a").Bool("enabled"); });
  EXPECT_EQ(err, "test.yml:2:12: key a.enabled: expected true or false, got \"yes please\"");
}

TEST(ConfigNodeTest, QuotedNumberIsNotAnInteger) {
  std::string err = ErrorOf("threads: \"4\"\n", [](auto root) { root.Int("threads", 1, 10); });
  EXPECT_NE(err.find("test.yml:1:10: key threads: expected an integer, got the string"),
            std::string::npos)
      << err;
}

TEST(ConfigNodeTest, OutOfRange) {
  std::string err = ErrorOf("threads: 0\n", [](auto root) { root.Int("threads", 1, 10); });
  EXPECT_EQ(err, "test.yml:1:10: key threads: value 0 is out of range [1, 10]");
}

TEST(ConfigNodeTest, DuplicateKeyIsAnError) {
  std::string err = ErrorOf("a: 1\na: 2\n", [](auto root) { root.ExpectMapWithKeys({"a"}); });
  EXPECT_EQ(err, "test.yml:2:1: key a: appears twice");
}

TEST(ConfigNodeTest, SectionThatIsNotAMapping) {
  std::string err = ErrorOf("web: 5\n", [](auto root) { root.Child("web").MapKeys(); });
  EXPECT_NE(err.find("key web: expected a mapping, got \"5\""), std::string::npos) << err;
}

TEST(ConfigNodeTest, SyntaxErrorNamesLine) {
  std::string err = ErrorOf("a: [1, 2\nb: 3\n", [](auto) {});
  EXPECT_EQ(err.rfind("test.yml:", 0), 0u);
  EXPECT_NE(err.find("YAML syntax error"), std::string::npos) << err;
}

TEST(ConfigNodeTest, ValuesAndAbsentKeys) {
  auto root = ConfigNode::LoadString("s: hello\nb: false\nn: 7\nd: 0.5\nl: [x, y]\n", "t");
  EXPECT_EQ(root.String("s"), "hello");
  EXPECT_EQ(root.Bool("b"), false);
  EXPECT_EQ(root.Int("n", 0, 10), 7);
  EXPECT_EQ(root.Double("d", 0, 1), 0.5);
  EXPECT_EQ(root.StringList("l"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(root.String("missing"), std::nullopt);
  EXPECT_FALSE(root.Child("missing").present());
  EXPECT_EQ(root.Child("missing").Bool("x"), std::nullopt);
}

TEST(ConfigNodeTest, MissingFile) {
  try {
    ConfigNode::LoadFile("/nonexistent/fabric.yml");
    FAIL() << "no exception";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/fabric.yml: cannot read the config file: open "
              "/nonexistent/fabric.yml: No such file or directory");
  }
}

}  // namespace
}  // namespace fabric
