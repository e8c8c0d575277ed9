// RANGE_SCAN_CREATE's configuration: what parses, into what, and the reason each invalid one
// is refused with.
#include "scan/scan_config.h"

#include <gtest/gtest.h>

#include <string>

namespace tern::scan {
namespace {

TEST(ScanConfigTest, ParsesARangeScanAsTheSdksSendIt) {
  ScanConfig config;
  // What the official C++ core sends for a PrefixScan("user") of collection 8, ids only, with
  // a mutation token to be consistent with.
  ASSERT_EQ(
      parse_scan_config(
          R"({"collection":"8","key_only":true,"range":{"start":"dXNlcg==","end":"dXNlcvQ="},)"
          R"("snapshot_requirements":{"vb_uuid":"18446744073709551615","seqno":12,"timeout_ms":2500},)"
          R"("unknown":[1,2]})",
          config),
      std::nullopt);
  EXPECT_EQ(config.collection_id, 8u);
  EXPECT_TRUE(config.key_only);
  EXPECT_FALSE(config.sampling());
  EXPECT_EQ(config.start.key, "user");
  EXPECT_TRUE(config.start.inclusive);
  EXPECT_EQ(config.end.key, "user\xf4");
  ASSERT_TRUE(config.snapshot.has_value());
  EXPECT_EQ(config.snapshot->vb_uuid, 18446744073709551615ull);
  EXPECT_EQ(config.snapshot->seqno, 12u);
  EXPECT_FALSE(config.snapshot->seqno_exists);
  EXPECT_EQ(config.snapshot->timeout_ms, 2500u);
  EXPECT_TRUE(config.in_range("user"));
  EXPECT_TRUE(config.in_range("user-1"));
  EXPECT_TRUE(config.in_range("user\xf4"));
  EXPECT_FALSE(config.in_range("use"));
  EXPECT_FALSE(config.in_range("user\xf4\x01"));
}

TEST(ScanConfigTest, ExclusiveBoundsAndSampling) {
  ScanConfig config;
  ASSERT_EQ(parse_scan_config(R"({"range":{"excl_start":"YQ==","excl_end":"Yw=="}})", config),
            std::nullopt);
  EXPECT_EQ(config.collection_id, 0u);
  EXPECT_FALSE(config.key_only);
  EXPECT_FALSE(config.in_range("a"));
  EXPECT_TRUE(config.in_range("a0"));
  EXPECT_TRUE(config.in_range("b"));
  EXPECT_FALSE(config.in_range("c"));
  ASSERT_EQ(
      parse_scan_config(
          R"({"collection":"abc","sampling":{"samples":100,"seed":18446744073709551615}})", config),
      std::nullopt);
  EXPECT_EQ(config.collection_id, 0xabcu);
  EXPECT_TRUE(config.sampling());
  EXPECT_EQ(config.samples, 100u);
  EXPECT_EQ(config.seed, 18446744073709551615ull);
  EXPECT_TRUE(config.in_range("anything"));
  ASSERT_EQ(parse_scan_config(
                R"({"sampling":{"samples":1},"snapshot_requirements":{"vb_uuid":"1","seqno":2,)"
                R"("seqno_exists":true,"timeout_ms":4000000000}})",
                config),
            std::nullopt);
  EXPECT_TRUE(config.snapshot->seqno_exists);
  EXPECT_EQ(config.snapshot->timeout_ms, kMaxSeqnoWaitMs);
}

TEST(ScanConfigTest, RefusesEachInvalidConfigurationWithItsReason) {
  const std::string range = R"("range":{"start":"YQ==","end":"Yw=="})";
  for (const auto& [json, reason] : std::initializer_list<std::pair<std::string, std::string>>{
           {"[]", "the value must be a JSON object"},
           {"{", "the value must be a JSON object"},
           {"{}", "one of range and sampling is required"},
           {"{" + range + R"(,"sampling":{"samples":1}})", "one of range and sampling is required"},
           {R"({"collection":8,)" + range + "}",
            "collection must be a collection id in hexadecimal"},
           {R"({"collection":"x8",)" + range + "}",
            "collection must be a collection id in hexadecimal"},
           {R"({"collection":"100000000",)" + range + "}",
            "collection must be a collection id in hexadecimal"},
           {R"({"key_only":1,)" + range + "}", "key_only must be a bool"},
           {R"({"key_only":false,"include_xattrs":true,)" + range + "}",
            "include_xattrs is not supported"},
           {R"({"range":{"end":"YQ=="}})", "range needs one of start and excl_start"},
           {R"({"range":{"start":"YQ==","excl_start":"YQ==","end":"YQ=="}})",
            "range needs one of start and excl_start"},
           {R"({"range":{"start":"YQ=="}})", "range needs one of end and excl_end"},
           {R"({"range":{"start":"YQ","end":"YQ=="}})", "range start must be a base64 string"},
           {R"({"range":{"start":"YQ==","excl_end":7}})", "range excl_end must be a base64 string"},
           {R"({"range":{"start":")" + std::string(336, 'A') + R"(","end":"YQ=="}})",
            "range start is longer than 250 bytes"},
           {R"({"sampling":{}})", "sampling.samples is required"},
           {R"({"sampling":{"samples":0}})", "sampling.samples must be above 0"},
           {R"({"sampling":{"samples":-1}})", "sampling.samples must be a non-negative integer"},
           {R"({"sampling":{"samples":1,"seed":"7"}})",
            "sampling.seed must be a non-negative integer"},
           {"{" + range + R"(,"snapshot_requirements":{"seqno":1}})",
            "snapshot_requirements.vb_uuid is required, as a string of a decimal number"},
           {"{" + range + R"(,"snapshot_requirements":{"vb_uuid":"12a","seqno":1}})",
            "snapshot_requirements.vb_uuid must be a string of a decimal number"},
           {"{" + range + R"(,"snapshot_requirements":{"vb_uuid":"12"}})",
            "snapshot_requirements.seqno is required"},
           {"{" + range +
                R"(,"snapshot_requirements":{"vb_uuid":"12","seqno":1,"seqno_exists":"yes"}})",
            "snapshot_requirements.seqno_exists must be a bool"},
           {"{" + range + R"(,"name":7})", "name must be a string"},
           {"{" + range + R"(,"name":")" + std::string(51, 'n') + R"("})",
            "name is longer than 50 bytes"},
       }) {
    ScanConfig config;
    EXPECT_EQ(parse_scan_config(json, config), reason) << json;
  }
}

}  // namespace
}  // namespace tern::scan
