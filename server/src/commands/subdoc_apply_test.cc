// MutationApplier on document views built by hand, without requests on the wire or writes:
// what a new document starts as, what a removed one keeps, the rules that only the whole
// plan can check, and where the macros' placeholders end up.
#include "commands/subdoc_apply.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/item.h"
#include "engine/stored_item.h"
#include "protocol/datatype.h"
#include "xattr/blob.h"

namespace tern::commands {
namespace {

using protocol::Status;
using subdoc::SpecOp;

constexpr uint8_t kJson = protocol::datatype::kJson;
constexpr uint8_t kXattr = protocol::datatype::kXattr;

subdoc::Request request_of(std::vector<subdoc::Spec> specs, uint8_t doc_flags = 0) {
  subdoc::Request request;
  request.mutation = true;
  request.multi = true;
  request.doc_flags = doc_flags;
  request.spec_count = specs.size();
  for (size_t i = 0; i < specs.size(); ++i) request.specs[i] = specs[i];
  return request;
}

subdoc::Spec body_spec(SpecOp op, std::string_view path, std::string_view value,
                       uint8_t flags = 0) {
  return {.op = op, .path_flags = flags, .path = path, .value = value};
}

subdoc::Spec xattr_spec(SpecOp op, std::string_view path, std::string_view value,
                        uint8_t flags = 0) {
  return body_spec(op, path, value, static_cast<uint8_t>(flags | subdoc::kPathXattr));
}

std::vector<xattr::Attribute> attributes_of(const MutationPlan& plan) {
  std::vector<xattr::Attribute> out;
  EXPECT_TRUE(xattr::parse(plan.value.substr(0, plan.section_bytes), out));
  return out;
}

class SubdocApplyTest : public ::testing::Test {
 protected:
  // A view of a stored document: `body` after the attributes, datatype as stored.
  SubdocDocument& stored(std::string_view body, uint8_t body_datatype,
                         const std::vector<xattr::Attribute>& attributes = {},
                         bool deleted = false) {
    std::string value;
    xattr::append_section(attributes, value);
    value.append(body);
    engine::MutableItemPtr item = engine::make_item("doc", {value});
    item->datatype =
        static_cast<uint8_t>(body_datatype | (attributes.empty() ? 0 : kXattr));
    item->deleted = deleted;
    item->cas = 42;
    EXPECT_EQ(doc_.load(engine::GetResult{.status = engine::Status::Success, .item = item},
                        engine_, 0),
              Status::Success);
    return doc_;
  }

  SubdocDocument& missing() {
    doc_.load_missing(0);
    return doc_;
  }

  engine::Engine engine_{engine::Config{.shard_count = 1}};
  SubdocDocument doc_;
  MutationApplier applier_;
};

TEST_F(SubdocApplyTest, ANewDocumentStartsAsItsFirstPathSpecSays) {
  struct Case {
    subdoc::Spec first;
    std::string body;  // after the spec ran
    uint8_t datatype;
  };
  const std::vector<Case> cases = {
      {body_spec(SpecOp::DictUpsert, "a", "1"), R"({"a":1})", kJson},
      {body_spec(SpecOp::DictUpsert, " a", "1"), R"({" a":1})", kJson},
      {body_spec(SpecOp::ArrayPushLast, "", "1"), "[1]", kJson},
      {body_spec(SpecOp::ArrayPushFirst, "", "1"), "[1]", kJson},
      {body_spec(SpecOp::ArrayAddUnique, "", "1"), "[1]", kJson},
      {body_spec(SpecOp::ArrayInsert, "[0]", "1"), "[1]", kJson},
      // An XATTR path is an object's member: the body is an empty object.
      {xattr_spec(SpecOp::DictUpsert, "meta", "1"), "{}", kXattr | kJson},
      // Only whole-document specs: no root.
      {body_spec(SpecOp::SetDoc, "", "bytes"), "bytes", 0},
  };
  for (const Case& c : cases) {
    const MutationPlan& plan = applier_.run(missing(), request_of({c.first}, subdoc::kDocMkdoc));
    ASSERT_EQ(plan.status, Status::Success) << c.first.path;
    EXPECT_EQ(plan.value.substr(plan.section_bytes), c.body) << c.first.path;
    EXPECT_EQ(plan.datatype, c.datatype) << c.first.path;
    EXPECT_FALSE(plan.deleted);
    EXPECT_FALSE(plan.reports_deleted);
  }
}

TEST_F(SubdocApplyTest, ADocumentCreatedAsDeletedHoldsOnlyXattrs) {
  const MutationPlan& plan = applier_.run(
      missing(), request_of({xattr_spec(SpecOp::DictUpsert, "_txn", "1")},
                            subdoc::kDocAdd | subdoc::kDocAccessDeleted |
                                subdoc::kDocCreateAsDeleted));
  ASSERT_EQ(plan.status, Status::Success);
  EXPECT_EQ(plan.value.substr(plan.section_bytes), "");
  EXPECT_EQ(plan.datatype, kXattr);
  EXPECT_EQ(attributes_of(plan), (std::vector<xattr::Attribute>{{"_txn", "1"}}));
  EXPECT_TRUE(plan.deleted);
  EXPECT_TRUE(plan.reports_deleted);
}

TEST_F(SubdocApplyTest, DeleteDocKeepsOnlyTheSystemXattrs) {
  SubdocDocument& doc =
      stored(R"({"a":1})", kJson, {{"usr", "1"}, {"_sys", R"({"k":2})"}, {"_other", "3"}});
  const MutationPlan& plan = applier_.run(
      doc, request_of({xattr_spec(SpecOp::DictUpsert, "usr2", "4"),
                       xattr_spec(SpecOp::Counter, "_other", "1"),
                       body_spec(SpecOp::DeleteDoc, "", "")}));
  ASSERT_EQ(plan.status, Status::Success);
  EXPECT_EQ(plan.value.substr(plan.section_bytes), "");
  EXPECT_EQ(plan.datatype, kXattr);
  EXPECT_EQ(attributes_of(plan),
            (std::vector<xattr::Attribute>{{"_sys", R"({"k":2})"}, {"_other", "4"}}));
  EXPECT_TRUE(plan.deleted);
  EXPECT_FALSE(plan.reports_deleted);  // it was live: the answer is Success
}

TEST_F(SubdocApplyTest, DeleteDocWithoutSystemXattrsLeavesNothing) {
  const MutationPlan& plan = applier_.run(stored(R"({"a":1})", kJson, {{"usr", "1"}}),
                                          request_of({body_spec(SpecOp::DeleteDoc, "", "")}));
  ASSERT_EQ(plan.status, Status::Success);
  EXPECT_EQ(plan.value, "");
  EXPECT_EQ(plan.datatype, 0);
  EXPECT_TRUE(plan.deleted);
}

TEST_F(SubdocApplyTest, ATombstoneStaysBodilessUnlessRevived) {
  const std::vector<xattr::Attribute> system = {{"_sys", "1"}};
  // Decoding refuses SetDoc with AccessDeleted (as Couchbase does), so only this rule stands
  // between a tombstone and a body: the whole plan is refused, no spec is named.
  const subdoc::Request set_body =
      request_of({body_spec(SpecOp::SetDoc, "", R"({"b":1})")}, subdoc::kDocAccessDeleted);
  const MutationPlan& refused = applier_.run(stored("", 0, system, true), set_body);
  EXPECT_EQ(refused.status, Status::SubdocDeletedDocumentCantHaveValue);
  EXPECT_EQ(refused.failed_spec, -1);

  const MutationPlan& revived = applier_.run(
      stored("", 0, system, true),
      request_of({body_spec(SpecOp::SetDoc, "", R"({"b":1})")},
                 subdoc::kDocAccessDeleted | subdoc::kDocReviveDocument));
  ASSERT_EQ(revived.status, Status::Success);
  EXPECT_EQ(revived.value.substr(revived.section_bytes), R"({"b":1})");
  EXPECT_EQ(revived.datatype, kXattr | kJson);
  EXPECT_FALSE(revived.deleted);
  EXPECT_FALSE(revived.reports_deleted);

  // XATTRs alone keep it a tombstone.
  const MutationPlan& touched = applier_.run(
      stored("", 0, system, true),
      request_of({xattr_spec(SpecOp::DictUpsert, "_sys", "2")}, subdoc::kDocAccessDeleted));
  ASSERT_EQ(touched.status, Status::Success);
  EXPECT_TRUE(touched.deleted);
  EXPECT_TRUE(touched.reports_deleted);
}

TEST_F(SubdocApplyTest, TheFirstFailingSpecIsNamedAndNothingIsBuilt) {
  const MutationPlan& plan = applier_.run(
      stored(R"({"a":1})", kJson),
      request_of({xattr_spec(SpecOp::DictUpsert, "x", "1"), body_spec(SpecOp::DictUpsert, "b", "1"),
                  body_spec(SpecOp::Replace, "missing", "1"),
                  body_spec(SpecOp::DictAdd, "a", "1")}));
  EXPECT_EQ(plan.status, Status::SubdocPathEnoent);
  EXPECT_EQ(plan.failed_spec, 2);
  EXPECT_TRUE(plan.value.empty());
}

TEST_F(SubdocApplyTest, AStoredBodyKeepsItsDatatypeAndAnUntouchedOneIsCopiedAsIs) {
  // Not JSON by its datatype: body paths fail, XATTRs still change.
  SubdocDocument& raw = stored("not json", 0);
  const MutationPlan& failed =
      applier_.run(raw, request_of({body_spec(SpecOp::DictUpsert, "a", "1")}));
  EXPECT_EQ(failed.status, Status::SubdocDocNotJson);
  const MutationPlan& plan = applier_.run(
      stored("not json", 0), request_of({xattr_spec(SpecOp::DictUpsert, "m", "1")}));
  ASSERT_EQ(plan.status, Status::Success);
  EXPECT_EQ(plan.value.substr(plan.section_bytes), "not json");
  EXPECT_EQ(plan.datatype, kXattr);
}

TEST_F(SubdocApplyTest, MacrosLeavePlaceholdersForTheCasAndSeqnoAndFillTheCrc) {
  const subdoc::Request request = request_of({
      xattr_spec(SpecOp::DictUpsert, "m.cas", R"("${Mutation.CAS}")",
                 subdoc::kPathCreateParents | subdoc::kPathExpandMacros),
      xattr_spec(SpecOp::DictUpsert, "m.seqno", R"("${Mutation.seqno}")",
                 subdoc::kPathExpandMacros),
      xattr_spec(SpecOp::DictUpsert, "m.crc", R"("${Mutation.value_crc32c}")",
                 subdoc::kPathExpandMacros),
      xattr_spec(SpecOp::DictUpsert, "m.was", R"("${$document.CAS}")", subdoc::kPathExpandMacros),
      body_spec(SpecOp::DictUpsert, "b", "2"),
  });
  const MutationPlan& plan = applier_.run(stored(R"({"a":1})", kJson), request);
  ASSERT_EQ(plan.status, Status::Success);
  std::string value(plan.value);
  applier_.macros().fill_cas_and_seqno(std::span(value.data(), value.size()), 0x1122334455667788,
                                       5);
  std::vector<xattr::Attribute> attributes;
  ASSERT_TRUE(xattr::parse(std::string_view(value).substr(0, plan.section_bytes), attributes));
  ASSERT_EQ(attributes.size(), 1u);
  EXPECT_EQ(attributes[0].value,
            R"({"cas":"0x8877665544332211","seqno":"0x0000000000000005","crc":")" +
                std::string("0x") + [] {
                  char hex[9];
                  std::snprintf(hex, sizeof hex, "%08x", crc32c(R"({"a":1,"b":2})"));
                  return std::string(hex);
                }() + R"(","was":"0x000000000000002a"})");
  EXPECT_EQ(std::string_view(value).substr(plan.section_bytes), R"({"a":1,"b":2})");
}

}  // namespace
}  // namespace tern::commands
