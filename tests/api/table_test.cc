// The versioned table: GetApi, GetVersionString, and the slot layout (DESIGN.md §3 rules 1–2).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "graph_fixtures.h"
#include "graph_slots.h"

namespace kiln_test {
namespace {

TEST(ApiTable, SlotListMatchesTheStruct) {
  const size_t count = sizeof(kSlots) / sizeof(kSlots[0]);
  EXPECT_EQ(sizeof(KilnApi), count * sizeof(void*)) << "a KilnApi slot is missing from slots.h";
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(kSlots[i].offset, i * sizeof(void*)) << kSlots[i].name << " moved";
  }
}

// DESIGN.md §3 rule 4: every handle type a Create… or Get… entry hands out has a Release… entry.
TEST(ApiTable, EveryOwnedHandleTypeHasARelease) {
  const std::set<std::string> names = SlotNames(false);
  for (const char* release :
       {"ReleaseStatus", "ReleaseEnv", "ReleaseMemoryInfo", "ReleaseTensorTypeAndShapeInfo",
        "ReleaseValue", "ReleaseSessionOptions", "ReleaseSession", "ReleaseRunOptions",
        "ReleaseIoBinding"}) {
    EXPECT_EQ(names.count(release), 1u) << release;
  }
  size_t releases = 0;
  for (const std::string& n : names) releases += n.rfind("Release", 0) == 0 ? 1 : 0;
  EXPECT_EQ(releases, 9u) << "a new handle type needs its Release entry listed here";
}

TEST(ApiTable, EverySlotIsFilled) {
  const KilnApi& table = api();
  for (const SlotInfo& s : kSlots) {
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(&table) + s.offset, sizeof slot);
    EXPECT_NE(slot, nullptr) << s.name;
  }
}

TEST(ApiTable, GetApiReturnsTheSameTableEachTime) {
  EXPECT_EQ(KilnGetApiBase(), KilnGetApiBase());
  EXPECT_EQ(KilnGetApiBase()->GetApi(KILN_API_VERSION), &api());
  EXPECT_EQ(KILN_API_VERSION, 1);
}

TEST(ApiTable, UnknownVersionsGiveNullAndSayWhyOnStderr) {
  for (uint32_t version : {0u, 2u, 0xFFFFFFFFu}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(KilnGetApiBase()->GetApi(version), nullptr) << version;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("API version " + std::to_string(version) + " is not provided"),
              std::string::npos)
        << err;
  }
}

struct Captured {
  std::vector<std::string> messages;
  std::vector<KilnLoggingLevel> levels;
};

void KILN_API_CALL Capture(void* param, KilnLoggingLevel severity, const char* /*category*/,
                           const char* /*log_id*/, const char* /*location*/, const char* message) {
  auto* c = static_cast<Captured*>(param);
  c->messages.emplace_back(message);
  c->levels.push_back(severity);
}

TEST(ApiTable, UnknownVersionIsLoggedThroughAnEnvLogger) {
  Captured captured;
  KilnEnv* env = nullptr;
  ExpectOk(api().CreateEnvWithCustomLogger(&Capture, &captured, KILN_LOGGING_LEVEL_VERBOSE,
                                           "table-test", &env));
  EXPECT_EQ(KilnGetApiBase()->GetApi(7), nullptr);
  api().ReleaseEnv(env);
  ASSERT_EQ(captured.messages.size(), 1u);
  EXPECT_EQ(captured.levels[0], KILN_LOGGING_LEVEL_ERROR);
  EXPECT_NE(captured.messages[0].find("API version 7"), std::string::npos);
}

// The graph sub-table (kiln/kiln_graph_api.h), DESIGN.md §3 rule 11: its own version and slots.
TEST(GraphApiTable, SlotListMatchesTheStruct) {
  const size_t count = sizeof(kGraphSlots) / sizeof(kGraphSlots[0]);
  EXPECT_EQ(count, 104u);
  EXPECT_EQ(sizeof(KilnGraphApi), count * sizeof(void*))
      << "a KilnGraphApi slot is missing from graph_slots.h";
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(kGraphSlots[i].offset, i * sizeof(void*)) << kGraphSlots[i].name << " moved";
  }
  // KilnApi's two slots for it, after the custom-op ones.
  EXPECT_EQ(offsetof(KilnApi, GetGraphApi), 127 * sizeof(void*));
  EXPECT_EQ(offsetof(KilnApi, GetTensorData), 128 * sizeof(void*));
}

TEST(GraphApiTable, SlotNamesAreDistinctFromKilnApis) {
  const std::set<std::string> graph = GraphSlotNames(false);
  EXPECT_EQ(graph.size(), sizeof(kGraphSlots) / sizeof(kGraphSlots[0]));
  for (const std::string& name : SlotNames(false)) EXPECT_EQ(graph.count(name), 0u) << name;
}

TEST(GraphApiTable, EveryOwnedHandleTypeHasARelease) {
  const std::set<std::string> names = GraphSlotNames(false);
  size_t releases = 0;
  for (const std::string& n : names) releases += n.rfind("Release", 0) == 0 ? 1 : 0;
  for (const char* release : {"ReleaseModel", "ReleaseGraph", "ReleaseTypeInfo", "ReleaseValueInfo",
                              "ReleaseNode", "ReleaseAttribute"}) {
    EXPECT_EQ(names.count(release), 1u) << release;
  }
  EXPECT_EQ(releases, 6u) << "a new handle type needs its Release entry listed here";
  // Only the Release entries return nothing.
  for (const SlotInfo& s : kGraphSlots) {
    EXPECT_EQ(s.returns_status, std::string(s.name).rfind("Release", 0) != 0) << s.name;
  }
}

TEST(GraphApiTable, EverySlotIsFilled) {
  const KilnGraphApi& table = graph_api();
  for (const SlotInfo& s : kGraphSlots) {
    void* slot = nullptr;
    std::memcpy(&slot, reinterpret_cast<const char*>(&table) + s.offset, sizeof slot);
    EXPECT_NE(slot, nullptr) << s.name;
  }
}

TEST(GraphApiTable, GetGraphApiGivesVersionOneOnly) {
  EXPECT_EQ(KILN_GRAPH_API_VERSION, 1);
  const KilnGraphApi* table = api().GetGraphApi(1);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(api().GetGraphApi(KILN_GRAPH_API_VERSION), table);
  EXPECT_EQ(&graph_api(), table);
  for (uint32_t version : {0u, 2u, 0xFFFFFFFFu}) {
    testing::internal::CaptureStderr();
    EXPECT_EQ(api().GetGraphApi(version), nullptr) << version;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("graph API version " + std::to_string(version) + " is not provided"),
              std::string::npos)
        << err;
  }
}

TEST(ApiTable, VersionString) {
  const std::string v = KilnGetApiBase()->GetVersionString();
  EXPECT_EQ(v, KILN_EXPECTED_VERSION);
  EXPECT_TRUE(std::regex_match(v, std::regex(R"(\d+\.\d+\.\d+)"))) << v;
}

}  // namespace
}  // namespace kiln_test
