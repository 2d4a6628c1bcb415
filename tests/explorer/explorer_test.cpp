// The explorer's API (issue 16) against the brute-force solver of the tests
// (tests/probe/brute_force.hpp): every position's value, its moves with
// their values in the order best first, and a material's counts and
// distances; then bad input, and the same answers over HTTP from many
// clients at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <thread>
#include <tuple>

#include <fmt/core.h>
#include <httplib.h>

#include "draughts/notation.hpp"
#include "draughts/variant.hpp"
#include "explorer/explorer.hpp"
#include "explorer/report.hpp"
#include "explorer/server.hpp"
#include "builder/solver/rule_solver.hpp"
#include "tests/builder/rule_brute_force.hpp"
#include "tests/probe/brute_force.hpp"
#include "tests/probe/synthetic_tables.hpp"

namespace dtb {
namespace {

using Json = nlohmann::ordered_json;

Json expected_value(test::Score s) {
    return {{"value", s.wdl == 1 ? "win" : s.wdl == -1 ? "loss" : "draw"},
            {"plies", s.wdl == 0 ? Json() : Json(s.plies)}};
}

// Every position of `targets` (both sides to move) probed through the API
// and checked against the brute-force solver.
template <class V>
void check_probes(const test::BruteForce<V>& truth, const explorer::Explorer& api, const std::vector<Material>& targets) {
    constexpr int N = V::board_size;
    std::uint64_t probed = 0, moves_checked = 0;
    for (const Material& c : targets)
        for (const Material& m : {c, c.mirrored()}) {
            const Index<N> index(m);
            for (std::uint64_t i = 0; i < index.size(); ++i)
                for (const auto& p : {index.unrank(i), index.unrank(i).flipped()}) {
                    const std::string fen = draughts::to_fen(p);
                    const explorer::Reply r = api.probe(V::name, fen);
                    ASSERT_EQ(r.status, 200) << fen << " " << r.body.dump();
                    const test::Score s = truth.score(p);
                    ASSERT_EQ(r.body["fen"], fen);
                    ASSERT_EQ(r.body["value"], expected_value(s)["value"]) << fen;
                    ASSERT_EQ(r.body["plies"], expected_value(s)["plies"]) << fen;
                    // The legal moves, in generation order, with their brute-force values.
                    draughts::MoveList<N> legal;
                    draughts::generate_moves<V>(p, legal);
                    std::map<std::string, std::pair<int, test::Score>> by_text;  // text: (generation order, value after)
                    int order = 0;
                    for (const auto& mv : legal) {
                        auto child = p;
                        draughts::make_move(child, mv);
                        by_text[draughts::move_to_text<V>(p, mv)] = {order++, truth.score(child)};
                    }
                    const Json& moves = r.body["moves"];
                    ASSERT_EQ(moves.size(), legal.size()) << fen;
                    std::set<std::string> seen;
                    for (std::size_t k = 0; k < moves.size(); ++k) {
                        const std::string text = moves[k]["move"];
                        ASSERT_TRUE(by_text.contains(text)) << fen << " " << text;
                        ASSERT_TRUE(seen.insert(text).second) << fen << " " << text;
                        const auto [gen, after] = by_text[text];
                        ASSERT_EQ(moves[k]["value"], expected_value(after)["value"]) << fen << " " << text;
                        ASSERT_EQ(moves[k]["plies"], expected_value(after)["plies"]) << fen << " " << text;
                        const auto child = draughts::parse_fen<N>(moves[k]["fen"].get<std::string>());
                        ASSERT_EQ(truth.score(child).wdl, after.wdl) << fen << " " << text;
                        ASSERT_EQ(child.side_to_move, opposite(p.side_to_move));
                        if (k == 0) {
                            // The best move keeps the value: one ply less, for the other side.
                            ASSERT_EQ(after.for_mover().wdl, s.wdl) << fen;
                            ASSERT_EQ(after.for_mover().plies, s.plies) << fen;
                            continue;
                        }
                        // Best first for the side to move; among equals, the order of move generation.
                        const auto [gen_before, before] = by_text[moves[k - 1]["move"].get<std::string>()];
                        const int a = before.for_mover().rank(), b = after.for_mover().rank();
                        ASSERT_TRUE(a > b || (a == b && gen_before < gen)) << fen << " moves " << k - 1 << ", " << k;
                        ++moves_checked;
                    }
                    ++probed;
                }
        }
    EXPECT_GT(moves_checked, 0u);
    std::printf("%s: %llu positions and their moves through the API against the brute-force solver\n",
                std::string(V::name).c_str(), static_cast<unsigned long long>(probed));
}

// A material's statistics from the API against counts of the brute-force values.
template <class V>
void check_stats(const test::BruteForce<V>& truth, const explorer::Explorer& api, const Material& m) {
    constexpr int N = V::board_size;
    const explorer::Reply r = api.stats(V::name, m.name());
    ASSERT_EQ(r.status, 200) << r.body.dump();
    EXPECT_EQ(r.body["material"], m.name());
    const Index<N> own(m), mirror(m.mirrored());
    EXPECT_EQ(r.body["positions_per_side"], own.size());
    for (const bool white : {true, false}) {
        std::uint64_t win = 0, draw = 0, loss = 0;
        std::map<int, std::uint64_t> wins, losses;
        const Index<N>& index = white ? own : mirror;
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            const auto p = white ? index.unrank(i) : index.unrank(i).flipped();
            const test::Score s = truth.score(p);
            if (s.wdl == 0) ++draw;
            if (s.wdl == 1) ++win, ++wins[s.plies];
            if (s.wdl == -1) ++loss, ++losses[s.plies];
        }
        const Json& side = r.body[white ? "white_to_move" : "black_to_move"];
        EXPECT_EQ(side["win"], win);
        EXPECT_EQ(side["draw"], draw);
        EXPECT_EQ(side["loss"], loss);
        const auto pairs = [](const std::map<int, std::uint64_t>& at) {
            Json a = Json::array();
            for (const auto& [plies, n] : at) a.push_back({plies, n});
            return a;
        };
        EXPECT_EQ(side["histogram"]["win"], pairs(wins));
        EXPECT_EQ(side["histogram"]["loss"], pairs(losses));
        if (!wins.empty()) {
            EXPECT_EQ(side["max_dtw_win"], wins.rbegin()->first);
            EXPECT_EQ(side["count_at_max_win"], wins.rbegin()->second);
            const auto example = draughts::parse_fen<N>(side["example_max_win"].get<std::string>());
            EXPECT_EQ(truth.score(example).wdl, 1);
            EXPECT_EQ(truth.score(example).plies, wins.rbegin()->first);
        }
    }
}

TEST(ExplorerApi, AmericanAgainstBruteForce) {
    const std::vector<Material> targets = {Material::parse("KMvK"), Material::parse("KKvK")};
    const test::BruteForce<draughts::American> truth(targets);
    const test::TemporaryDirectory dir{"explorer-american"};
    test::write_true_tables(truth, targets, dir.path());
    const explorer::Explorer api(dir.path());
    EXPECT_EQ(api.variants(), std::vector<std::string>{"american"});
    check_probes(truth, api, targets);
    for (const Material& m : targets) check_stats(truth, api, m);
    // The aliases of the variant name answer the same.
    EXPECT_EQ(api.probe("checkers", "W:WK1,K3:BK32").body, api.probe("american", "W:WK1,K3:BK32").body);
}

TEST(ExplorerApi, BrazilianAgainstBruteForce) {
    // Flying kings and the maximum capture rule.
    const std::vector<Material> targets = {Material::parse("KKvK"), Material::parse("KvM")};
    const test::BruteForce<draughts::Brazilian> truth(targets);
    const test::TemporaryDirectory dir{"explorer-brazilian"};
    test::write_true_tables(truth, targets, dir.path());
    const explorer::Explorer api(dir.path());
    check_probes(truth, api, targets);
    for (const Material& m : targets) check_stats(truth, api, m);
}

// Writes the .rul tables of `targets` and all they lead to into dir (rule
// distances from the rule solver, which rule_solver_tests checks against
// the brute-force player of the rules).
template <class V>
void write_rule_tables(const std::vector<Material>& targets, const std::filesystem::path& dir) {
    RuleSuccessors<V> held;
    for (const Material& c : build_order(targets)) {
        auto values = std::make_shared<const RuleValues>(std::get<RuleValues>(RuleSolver<V>(c, held).solve()));
        write_rule_table(dir / std::string(V::name), test::test_table_spec<V>(c, 10),
                         rule_record<typename V::draw_rules>(values->count, false), rule_file_source(*values));
        held.add(values);
    }
}

// The report of a material with its rule tables (International, two kings
// against one: FMJD 6.5, 5 moves each): its counts, each side's longest win
// drawn along its best line, against the brute-force values; under the
// rules its five classes and the wins left with c plies counted, against
// the brute-force player of the rules.
TEST(ExplorerReport, InternationalKingsAgainstBruteForce) {
    using V = draughts::International;
    const Material m = Material::parse("KKvK");
    const test::BruteForce<V> truth({m});
    test::RuleBruteForce<V> rule_truth;
    const test::TemporaryDirectory dir{"explorer-report"};
    test::write_true_tables(truth, {m}, dir.path());
    write_rule_tables<V>({m}, dir.path());
    const std::string html = explorer::material_report("international", dir.path().string(), m);
    const auto count = [&](const std::string& what) {
        std::size_t n = 0;
        for (std::size_t at = html.find(what); at != std::string::npos; at = html.find(what, at + 1)) ++n;
        return n;
    };
    constexpr int limit = 10;
    const Index<10> own(m), mirror(m.mirrored());
    std::size_t diagrams = 0;
    for (const bool white : {true, false}) {
        std::uint64_t win = 0, draw = 0, loss = 0, cursed = 0, blessed = 0;
        std::vector<std::uint64_t> within(limit + 1);
        int longest = -1;
        const Index<10>& index = white ? own : mirror;
        for (std::uint64_t i = 0; i < index.size(); ++i) {
            const auto p = white ? index.unrank(i) : index.unrank(i).flipped();
            const test::Score s = truth.score(p);
            win += s.wdl == 1, draw += s.wdl == 0, loss += s.wdl == -1;
            if (s.wdl == 1) longest = std::max(longest, s.plies);
            const int ruled = rule_truth.value(p, rule_truth.counts_at(p, 0));
            cursed += s.wdl == 1 && ruled == 0;
            blessed += s.wdl == -1 && ruled == 0;
            if (s.wdl == 1)
                for (int c = 0; c <= limit; ++c) within[c] += rule_truth.value(p, rule_truth.counts_at(p, c)) == 1;
        }
        EXPECT_EQ(count(fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>", win, draw, loss)), 1u) << white;
        EXPECT_EQ(count(fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>", win - cursed,
                                    cursed, draw, blessed, loss - blessed)),
                  1u)
            << white << " " << cursed << " " << blessed;
        // In this side's section.
        const std::size_t black_at = html.find("<h2>Black to move");
        const std::string section = white ? html.substr(0, black_at) : html.substr(black_at);
        for (int c = 0; c <= limit; ++c)
            EXPECT_NE(section.find(fmt::format("<title>count at {}: {} wins left</title>", c, within[c])),
                      std::string::npos)
                << white << " " << c;
        if (longest >= 0) {
            EXPECT_EQ(count(fmt::format("<h3>The longest win, {} plies", longest)), 1u) << white;
            diagrams += static_cast<std::size_t>(longest) + 1;  // the start and one a ply
        }
    }
    EXPECT_EQ(count("FMJD 6.5"), 1u);
    EXPECT_EQ(count("<figure>"), diagrams);
    EXPECT_EQ(count("class=\"chart\""), 2u);
    EXPECT_EQ(count("class=\"chart survival\""), 2u);
    EXPECT_EQ(count("http"), 0u);  // self-contained: nothing to fetch
    EXPECT_EQ(count("src="), 0u);
}

// The API under the rules (International, two kings against one): the value
// at the counts given, and every move's counts after it and value there,
// against the brute-force player of the rules, at counts on both sides of
// the limit; bad counts and a material without rule tables refused.
TEST(ExplorerApi, UnderTheRules) {
    using V = draughts::International;
    using Counts = test::RuleBruteForce<V>::Counts;
    const Material m = Material::parse("KKvK");
    const test::BruteForce<V> truth({m});
    test::RuleBruteForce<V> rule_truth;
    const test::TemporaryDirectory dir{"explorer-rules"};
    test::write_true_tables(truth, {m}, dir.path());
    write_rule_tables<V>({m}, dir.path());
    const explorer::Explorer ex(dir.path());
    const auto name = [](int v) { return v > 0 ? "win" : v < 0 ? "loss" : "draw"; };
    int compared = 0;
    for (const char* fen : {"W:WK1,K2:BK33", "B:WK1,K2:BK33", "W:WK28,K50:BK46", "B:WK6,K17:BK49"}) {
        for (const int k : {0, 3, 8, 10}) {
            const std::string counts = fmt::format("K={},E={}", k, k);
            const explorer::Reply r = ex.probe("international", fen, counts);
            ASSERT_EQ(r.status, 200) << r.body.dump();
            const auto p = draughts::parse_fen<10>(fen);
            const Json& rules = r.body.at("rules");
            EXPECT_EQ(rules.at("counts"), counts);
            EXPECT_EQ(rules.at("value"), name(rule_truth.value(p, Counts{k, k, -1, -1}))) << fen << " " << counts;
            EXPECT_EQ(rules.at("plies_left"), 10 - k);
            ++compared;
            for (const Json& move : r.body.at("moves")) {
                if (k == 10) {  // the count has drawn the game
                    EXPECT_FALSE(move.contains("rules"));
                    continue;
                }
                const auto child = draughts::parse_fen<10>(move.at("fen").get<std::string>());
                const Json& after = move.at("rules");
                const bool capture = move.at("move").get<std::string>().find('x') != std::string::npos;
                const Counts expected = capture ? Counts{0, child.pieces(child.side_to_move) ? k + 1 : -1, -1, -1}
                                                : Counts{k + 1, k + 1, -1, -1};
                EXPECT_EQ(after.at("counts"), capture && !child.pieces(child.side_to_move)
                                                  ? std::string("K=0")
                                                  : fmt::format("K={},E={}", expected.k, expected.e));
                EXPECT_EQ(after.at("value"), name(rule_truth.value(child, expected))) << move.dump();
                ++compared;
            }
        }
    }
    EXPECT_GT(compared, 100);
    const explorer::Reply limit = ex.probe("international", "W:WK1,K2:BK33", "E=10");
    ASSERT_EQ(limit.status, 200);
    EXPECT_EQ(limit.body.at("rules").at("value"), "draw");
    const explorer::Reply stats = ex.stats("international", "KKvK", true);
    ASSERT_EQ(stats.status, 200) << stats.body.dump();
    EXPECT_EQ(stats.body.at("white_to_move").at("survival").size(), 11u);
    for (const char* bad : {"E=-1", "E=11", "T=0", "K=4,E=3", "E=x", "Q=1"}) {
        const explorer::Reply r = ex.probe("international", "W:WK1,K2:BK33", std::string(bad));
        EXPECT_EQ(r.status, 400) << bad;
        EXPECT_TRUE(r.body.contains("error")) << bad;
    }
    // Without its rule table: 404 naming the material for the visitor, and
    // for the operator's log the file and the command that builds it.
    std::filesystem::remove(dir.path() / "international" / "KvK.rul");
    const explorer::Explorer without(dir.path());
    const explorer::Reply missing = without.probe("international", "W:WK1:BK33", std::string("E=1"));
    EXPECT_EQ(missing.status, 404) << missing.body.dump();
    EXPECT_EQ(missing.body.at("error"), "this server has no table of KvK under the draw rules");
    EXPECT_NE(missing.log.find("KvK.rul"), std::string::npos) << missing.log;
    EXPECT_NE(missing.log.find("--material KvK --rules"), std::string::npos) << missing.log;
}

// Bad input: a clear error, the right status, never a crash or a value.
TEST(ExplorerApi, BadInput) {
    const std::vector<Material> targets = {Material::parse("KMvK")};
    const test::BruteForce<draughts::American> truth(targets);
    const test::TemporaryDirectory dir{"explorer-bad"};
    test::write_true_tables(truth, targets, dir.path());
    const explorer::Explorer api(dir.path());
    // The visitor is told what is wrong, never the server's folders or a
    // command; `logged` is what the operator's log must hold ("": nothing).
    const auto refused = [&](const explorer::Reply& r, int status, const std::string& words,
                             const std::string& logged = "") {
        EXPECT_EQ(r.status, status) << r.body.dump();
        ASSERT_TRUE(r.body.contains("error")) << r.body.dump();
        const std::string error = r.body["error"];
        EXPECT_NE(error.find(words), std::string::npos) << error;
        EXPECT_EQ(error.find(dir.path().string()), std::string::npos) << error;
        EXPECT_EQ(error.find("dtb build"), std::string::npos) << error;
        EXPECT_EQ(r.body.size(), 1u);
        if (logged.empty()) {
            EXPECT_EQ(r.log, "");
        } else {
            EXPECT_NE(r.log.find(logged), std::string::npos) << r.log;
        }
    };
    refused(api.probe("chess", "W:W1:B2"), 400, "unknown variant 'chess'");
    refused(api.probe("canadian", "W:WK1:BK2"), 404, "no tables of variant canadian (it has american)",
            "dtb build --variant canadian --dir " + dir.path().string() + " --pieces 4");
    refused(api.probe("american", "W:W1"), 400, "");              // malformed
    refused(api.probe("american", "X:W1:B2"), 400, "");           // side to move
    refused(api.probe("american", "W:W33:B2"), 400, "");          // off the board
    refused(api.probe("american", "W:W5,5:B2"), 400, "");         // one square twice
    refused(api.probe("american", "W:W2:B9"), 400, "promotion");  // a white man on its promotion row
    refused(api.probe("american", "W:WK1:B"), 400, "no pieces");  // the game is over before it
    refused(api.probe("american", "W:WK1,K3,K5:BK32"), 404, "no table of KKKvK",  // more than the tables hold
            "--material KKKvK");
    refused(api.stats("american", "KKKvK"), 404, "no table of KKKvK", "--material KKKvK");
    refused(api.stats("american", "KQvK"), 400, "");
    refused(api.stats("russian", "KvK"), 404, "no tables of variant russian", "--variant russian");
    // A damaged table: refused with its name, not answered; a fault of the
    // server (500), its path and fault in the log.
    const auto file = dir.path() / "american" / "KMvK.dtw";
    {
        std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(80);  // in the provenance, under the table checksum
        f.put('\x5a');
    }
    const explorer::Explorer damaged(dir.path());
    refused(damaged.probe("american", "W:WK1,6:BK32"), 500, "KMvK.dtw", (file.string()));
    EXPECT_THROW(explorer::Explorer(dir.path() / "american"), std::runtime_error);  // no variant folders
}

// True American tables of `targets` (the brute-force solver's) served on a
// free loopback port from construction to destruction.
struct ServedTables {
    ServedTables(const std::vector<Material>& targets, const std::string& name, int threads)
        : truth(targets), dir{name}, api((test::write_true_tables(truth, targets, dir.path()), dir.path())),
          server(api, {"127.0.0.1", 0, threads}), port(server.bind()), serving([this] { server.run(); }) {}
    ~ServedTables() {
        server.stop();
        serving.join();
    }
    const test::BruteForce<draughts::American> truth;
    const test::TemporaryDirectory dir;
    const explorer::Explorer api;
    explorer::Server server;
    const int port;
    std::thread serving;
};

// A second server on a port in use is refused, and the first keeps every
// request (cpp-httplib's default SO_REUSEPORT let both listen and split them).
TEST(ExplorerServer, RefusesAPortInUse) {
    const ServedTables first({Material::parse("KvK")}, "explorer-port", 2);
    const int port = first.port;
    explorer::Server second(first.api, {"127.0.0.1", port, 2});
    try {
        second.bind();
        ADD_FAILURE() << "a second server bound port " << port;
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("port " + std::to_string(port) + ": the port is taken"),
                  std::string::npos)
            << e.what();
    }
    httplib::Client client("127.0.0.1", port);
    for (int i = 0; i < 8; ++i) {
        const auto r = client.Get("/api/variants");
        ASSERT_TRUE(r);
        EXPECT_EQ(r->status, 200);
    }
}

// The API over HTTP on loopback: the same answers, errors in JSON, and many
// clients at once for a bounded time without a failed request.
TEST(ExplorerServer, AnswersOverHttp) {
    ServedTables served({Material::parse("KMvK"), Material::parse("KKvK")}, "explorer-http", 16);
    const auto& truth = served.truth;
    const auto& api = served.api;
    const int port = served.port;
    httplib::Client client("127.0.0.1", port);
    const auto get = [&](const std::string& path) {
        auto r = client.Get(path.c_str());
        EXPECT_TRUE(r) << path;
        return r;
    };
    auto r = get("/api/probe?variant=american&fen=" + httplib::detail::encode_query_param("W:WK1,K3:BK32"));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    EXPECT_EQ(Json::parse(r->body), api.probe("american", "W:WK1,K3:BK32").body);
    r = get("/api/stats?variant=american&material=KKvK");
    EXPECT_EQ(Json::parse(r->body), api.stats("american", "KKvK").body);
    r = get("/api/variants");
    const Json american = Json::parse(r->body)["variants"][0];
    EXPECT_EQ(american["name"], "american");
    // Checkers rules: Black moves first; the 40-move rule (80 plies) is the
    // only count, no lone-king ending and no main road.
    EXPECT_EQ(american["first_to_move"], "black");
    ASSERT_EQ(american["counts"].size(), 1u) << american.dump();
    EXPECT_EQ(american["counts"][0]["name"], "K");
    EXPECT_EQ(american["counts"][0]["rules"][0]["limit"], 80);
    for (const auto& [path, status] : std::vector<std::pair<std::string, int>>{
             {"/api/probe?variant=american", 400},
             {"/api/probe?variant=american&fen=nonsense", 400},
             {"/api/probe?variant=american&fen=W:WK1,K3,K5:BK32", 404},
             {"/api/stats?material=KvK", 400},
             {"/no/such/page", 404}}) {
        r = get(path);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->status, status) << path;
        EXPECT_TRUE(Json::parse(r->body).contains("error")) << path << " " << r->body;
    }
    // A count written with its '=' as it is: told how to write it.
    r = get("/api/probe?variant=american&fen=W:WK1,K3:BK32&count=K=12,E=3");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_NE(Json::parse(r->body).at("error").get<std::string>().find("count=K%3D12%2CE%3D3"), std::string::npos)
        << r->body;

    // Other methods, and what cpp-httplib refuses itself, answer in JSON too.
    for (const auto& [method, path, body, status] : std::vector<std::tuple<std::string, std::string, std::string, int>>{
             {"POST", "/api/probe", "x=1", 405},
             {"DELETE", "/", "", 405},
             {"PUT", "/api/stats", std::string(std::size_t{1} << 17, 'a'), 413},
             {"GET", "/api/probe?variant=american&fen=" + std::string(20000, 'W'), "", 414}}) {
        httplib::Request request;
        request.method = method;
        request.path = path;
        request.body = body;
        if (!body.empty()) request.set_header("Content-Type", "text/plain");
        const auto reply = client.send(request);
        ASSERT_TRUE(reply) << method << " " << path.substr(0, 40);
        EXPECT_EQ(reply->status, status) << method << " " << path.substr(0, 40);
        EXPECT_EQ(reply->get_header_value("Content-Type"), "application/json") << method;
        EXPECT_TRUE(Json::parse(reply->body).contains("error")) << method << " " << reply->body;
        if (status == 405) {
            EXPECT_EQ(reply->get_header_value("Allow"), "GET");
        }
    }

    // Many clients, each probing positions in turn, for a bounded time.
    const Index<8> index(Material::parse("KMvK"));
    constexpr int clients = 32;
    std::atomic<std::uint64_t> done{0}, failed{0};
    std::vector<std::vector<double>> latencies(clients);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c)
        threads.emplace_back([&, c] {
            httplib::Client mine("127.0.0.1", port);
            for (std::uint64_t i = static_cast<std::uint64_t>(c); std::chrono::steady_clock::now() < until;
                 i += clients) {
                const auto p = index.unrank(i % index.size());
                const auto start = std::chrono::steady_clock::now();
                auto reply = mine.Get(("/api/probe?variant=american&fen=" +
                                       httplib::detail::encode_query_param(draughts::to_fen(p)))
                                          .c_str());
                latencies[c].push_back(
                    std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
                if (!reply || reply->status != 200 ||
                    Json::parse(reply->body)["value"] != expected_value(truth.score(p))["value"])
                    ++failed;
                ++done;
            }
        });
    for (auto& t : threads) t.join();
    std::vector<double> all;
    for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(failed.load(), 0u);
    EXPECT_GT(done.load(), 0u);
    std::printf("%d clients for 2 s: %llu requests (%.0f a second), none failed; latency median %.0f us, "
                "99th percentile %.0f us\n",
                clients, static_cast<unsigned long long>(done.load()), done.load() / 2.0, all[all.size() / 2],
                all[all.size() * 99 / 100]);
}

}  // namespace
}  // namespace dtb
