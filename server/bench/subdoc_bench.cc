// Sub-document lookups and mutations two ways, on the same documents and the same path:
//   SubdocLookup_Splice   JsonDocument::load() + lookup(Get): index the text (simdjson), walk
//                         to the value skipping what comes before it, answer a view
//   SubdocLookup_Dom      parse the whole document into a rapidjson DOM, find the value,
//                         serialize it (Writer into a StringBuffer)
//   SubdocUpsert_Splice   JsonDocument::load() + mutate(DictUpsert) of an existing member:
//                         the new document is the old text with the new value spliced in
//   SubdocUpsert_Dom      parse into a DOM, parse the new value, replace the member,
//                         serialize the whole document
// The load is timed with the splice side because the server loads each request's document.
// Documents (1 KB, 64 KB, 1 MB) are generated deterministically: an object with a metadata
// member and an array of user records; the path names a member of the last record, so
// neither side can stop early. Both sides are checked to give the same bytes before timing.

#include <benchmark/benchmark.h>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "subdoc/json_document.h"
#include "subdoc/path.h"

namespace tern::subdoc {
namespace {

constexpr std::string_view kNewCity = R"("Shelbyville")";

struct Workload {
  std::string document;
  size_t last_user = 0;
  std::string path_text;  // users[<last>].address.city
  Path path;
};

std::string user_record(size_t id) {
  const std::string n = std::to_string(id);
  return R"({"id":)" + n + R"(,"name":"User Number )" + n + R"(","email":"user)" + n +
         R"(@example.com","age":)" + std::to_string(18 + id % 60) +
         R"(,"active":)" + (id % 3 == 0 ? "false" : "true") +
         R"(,"roles":["reader","writer"],"address":{"street":")" + n +
         R"( Evergreen Terrace","city":"Springfield","zip":")" + std::to_string(10000 + id) +
         R"("},"logins":[)" + std::to_string(1700000000 + id * 7) + "," +
         std::to_string(1700003600 + id * 7) + R"(],"balance":)" + std::to_string(id * 37 % 10000) +
         "}";
}

// Users are added until the document reaches `target` bytes.
Workload make_workload(size_t target) {
  Workload workload;
  std::string users;
  size_t id = 0;
  const std::string head = R"({"meta":{"schema":3,"source":"bench","tenant":"acme"},"users":[)";
  while (head.size() + users.size() + 2 < target || id == 0) {
    if (id > 0) users += ",";
    users += user_record(id++);
  }
  workload.document = head + users + "]}";
  workload.last_user = id - 1;
  workload.path_text = "users[" + std::to_string(workload.last_user) + "].address.city";
  if (parse_path(workload.path_text, workload.path) != protocol::Status::Success) std::abort();
  return workload;
}

const Workload& workload(size_t target) {
  static const Workload small = make_workload(1 << 10);
  static const Workload medium = make_workload(1 << 16);
  static const Workload large = make_workload(1 << 20);
  return target <= (1 << 10) ? small : target <= (1 << 16) ? medium : large;
}

// The DOM way to the value: member by member, element by element.
const rapidjson::Value* dom_find(const rapidjson::Value& root, const Path& path) {
  const rapidjson::Value* current = &root;
  for (const PathComponent& component : path) {
    if (component.kind == PathComponent::Kind::Key) {
      if (!current->IsObject()) return nullptr;
      const auto member = current->FindMember(rapidjson::StringRef(
          component.key.data(), static_cast<rapidjson::SizeType>(component.key.size())));
      if (member == current->MemberEnd()) return nullptr;
      current = &member->value;
    } else {
      if (!current->IsArray() || component.index < 0 ||
          static_cast<size_t>(component.index) >= current->Size()) {
        return nullptr;
      }
      current = &(*current)[static_cast<rapidjson::SizeType>(component.index)];
    }
  }
  return current;
}

// Returns false if the document does not parse or lacks the path.
bool dom_lookup(const Workload& w, rapidjson::StringBuffer& answer) {
  rapidjson::Document document;
  document.Parse(w.document.data(), w.document.size());
  if (document.HasParseError()) return false;
  const rapidjson::Value* value = dom_find(document, w.path);
  if (value == nullptr) return false;
  answer.Clear();
  rapidjson::Writer<rapidjson::StringBuffer> writer(answer);
  return value->Accept(writer);
}

bool dom_upsert(const Workload& w, std::string_view new_value, rapidjson::StringBuffer& out) {
  rapidjson::Document document;
  document.Parse(w.document.data(), w.document.size());
  if (document.HasParseError()) return false;
  rapidjson::Value* value = const_cast<rapidjson::Value*>(dom_find(document, w.path));
  if (value == nullptr) return false;
  rapidjson::Document parsed_value(&document.GetAllocator());
  parsed_value.Parse(new_value.data(), new_value.size());
  if (parsed_value.HasParseError()) return false;
  *value = parsed_value.Move();
  out.Clear();
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  return document.Accept(writer);
}

bool splice_lookup(JsonDocument& document, const Workload& w, std::string_view& value,
                   std::string& scratch) {
  return document.load(w.document) == protocol::Status::Success &&
         document.lookup(Lookup::Get, w.path, value, scratch) == protocol::Status::Success;
}

bool splice_upsert(JsonDocument& document, const Workload& w, std::string_view new_value,
                   std::string& out, std::string& result) {
  return document.load(w.document) == protocol::Status::Success &&
         document.mutate(Mutation::DictUpsert, w.path, new_value, false, out, result) ==
             protocol::Status::Success;
}

void count_document(benchmark::State& state, const Workload& w) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * w.document.size()));
  state.counters["doc_bytes"] = static_cast<double>(w.document.size());
}

// Both ways must agree before either is timed.
bool same_answers(const Workload& w) {
  JsonDocument document;
  std::string_view value;
  std::string scratch;
  rapidjson::StringBuffer answer;
  if (!splice_lookup(document, w, value, scratch) || !dom_lookup(w, answer) ||
      value != std::string_view(answer.GetString(), answer.GetSize()) ||
      value != R"("Springfield")") {
    return false;
  }
  std::string out;
  std::string result;
  rapidjson::StringBuffer written;
  return splice_upsert(document, w, kNewCity, out, result) && dom_upsert(w, kNewCity, written) &&
         out == std::string_view(written.GetString(), written.GetSize());
}

void SubdocLookup_Splice(benchmark::State& state) {
  const Workload& w = workload(static_cast<size_t>(state.range(0)));
  if (!same_answers(w)) return state.SkipWithError("splice and DOM disagree");
  JsonDocument document;  // one per thread in the server, reused
  std::string_view value;
  std::string scratch;
  for (auto _ : state) {
    if (!splice_lookup(document, w, value, scratch)) return state.SkipWithError("lookup failed");
    benchmark::DoNotOptimize(value.data());
  }
  count_document(state, w);
}

void SubdocLookup_Dom(benchmark::State& state) {
  const Workload& w = workload(static_cast<size_t>(state.range(0)));
  rapidjson::StringBuffer answer;
  for (auto _ : state) {
    if (!dom_lookup(w, answer)) return state.SkipWithError("lookup failed");
    benchmark::DoNotOptimize(answer.GetString());
  }
  count_document(state, w);
}

void SubdocUpsert_Splice(benchmark::State& state) {
  const Workload& w = workload(static_cast<size_t>(state.range(0)));
  if (!same_answers(w)) return state.SkipWithError("splice and DOM disagree");
  JsonDocument document;
  std::string out;
  std::string result;
  for (auto _ : state) {
    if (!splice_upsert(document, w, kNewCity, out, result)) {
      return state.SkipWithError("upsert failed");
    }
    benchmark::DoNotOptimize(out.data());
  }
  count_document(state, w);
}

void SubdocUpsert_Dom(benchmark::State& state) {
  const Workload& w = workload(static_cast<size_t>(state.range(0)));
  rapidjson::StringBuffer out;
  for (auto _ : state) {
    if (!dom_upsert(w, kNewCity, out)) return state.SkipWithError("upsert failed");
    benchmark::DoNotOptimize(out.GetString());
  }
  count_document(state, w);
}

// Sizes: 1 KB, 64 KB, 1 MB.
BENCHMARK(SubdocLookup_Splice)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK(SubdocLookup_Dom)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK(SubdocUpsert_Splice)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);
BENCHMARK(SubdocUpsert_Dom)->Arg(1 << 10)->Arg(1 << 16)->Arg(1 << 20);

}  // namespace
}  // namespace tern::subdoc

BENCHMARK_MAIN();
