#include "common/parse/mountinfo_parse.h"

#include <gtest/gtest.h>

namespace fabric {
namespace {

constexpr char kMountInfo[] =
    "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
    "23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "40 22 7:3 / /tmp/fl6-mnt\\040x rw,noatime - xfs /dev/loop3 rw,attr2,inode64\n"
    "41 22 254:0 /srv/data /data rw,relatime shared:1 master:2 - ext4 /dev/vda rw\n";

TEST(MountInfo, ParsesFieldsAndEscapes) {
  auto mounts = ParseMountInfo(kMountInfo, "mountinfo");
  ASSERT_TRUE(mounts.ok()) << mounts.error().message;
  ASSERT_EQ(mounts->size(), 4u);
  const MountInfo& loop = (*mounts)[2];
  EXPECT_EQ(loop.major, 7u);
  EXPECT_EQ(loop.minor, 3u);
  EXPECT_EQ(loop.mount_point, "/tmp/fl6-mnt x");
  EXPECT_EQ(loop.fstype, "xfs");
  EXPECT_EQ(loop.source, "/dev/loop3");
  EXPECT_EQ(loop.mount_options, "rw,noatime");
  EXPECT_EQ(loop.super_options, "rw,attr2,inode64");
  EXPECT_EQ((*mounts)[3].root, "/srv/data");  // Two optional fields skipped.
}

TEST(MountInfo, FindsLongestMountOfTheDevice) {
  auto mounts = ParseMountInfo(kMountInfo, "mountinfo");
  ASSERT_TRUE(mounts.ok());
  const MountInfo* m = FindMount(*mounts, 7, 3, "/tmp/fl6-mnt x/sub");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->fstype, "xfs");
  m = FindMount(*mounts, 254, 0, "/data/probe");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->mount_point, "/data");
  m = FindMount(*mounts, 254, 0, "/database");  // Not under /data.
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->mount_point, "/");
  // A device no line names (btrfs subvolume): fall back to the path.
  m = FindMount(*mounts, 0, 99, "/tmp/fl6-mnt x");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->source, "/dev/loop3");
  EXPECT_EQ(FindMount({}, 1, 1, "/"), nullptr);
}

TEST(MountInfo, BrokenLinesNameFileAndLine) {
  auto r = ParseMountInfo("22 1 254:0 / / rw - ext4 /dev/vda rw\n23 22 0:21 / /proc rw\n",
                          "/proc/self/mountinfo");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/proc/self/mountinfo:2:"), std::string::npos);
  r = ParseMountInfo("22 1 x:0 / / rw - ext4 /dev/vda rw\n", "m");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("m:1: bad device number"), std::string::npos);
}

}  // namespace
}  // namespace fabric
