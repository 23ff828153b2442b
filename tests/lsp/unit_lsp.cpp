// Unit tests of mdh-lsp's building blocks that the replay sessions reach
// only indirectly: UTF-16 edits, URIs, the incremental token cache (against
// a full re-lex, on random edits) and the JSON-RPC framing.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "Document.h"
#include "TokenCache.h"
#include "Transport.h"
#include "Uri.h"
#include "parse/Tokens.h"
#include "support/Source.h"

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace mdh;
using namespace mdh::lsp;

namespace {
TextDocumentContentChange change(int l0, int c0, int l1, int c1, std::string text) {
  TextDocumentContentChange c;
  c.range = Range{{l0, c0}, {l1, c1}};
  c.text = std::move(text);
  return c;
}

bool sameTokens(const std::vector<LexToken> &a, const std::vector<LexToken> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].begin != b[i].begin || a[i].end != b[i].end || a[i].kind != b[i].kind || a[i].text != b[i].text)
      return false;
  return true;
}
} // namespace

TEST_CASE("incremental edits count UTF-16 units and clamp") {
  Document d("file:///tmp/a.mdh", "ab😀cd\nxyz\n", 1);
  d.apply({change(0, 4, 0, 5, "C")}, 2); // the emoji is two units: 'c' is at 4
  CHECK(d.text() == "ab😀Cd\nxyz\n");
  d.apply({change(0, 3, 0, 3, "!")}, 3); // inside the surrogate pair: before the emoji
  CHECK(d.text() == "ab!😀Cd\nxyz\n");
  d.apply({change(1, 1, 1, 99, "")}, 4); // past the end of the line
  CHECK(d.text() == "ab!😀Cd\nx\n");
  d.apply({change(7, 0, 9, 0, "tail")}, 5); // past the end of the file
  CHECK(d.text() == "ab!😀Cd\nx\ntail");
  TextDocumentContentChange full;
  full.text = "new";
  d.apply({full}, 6);
  CHECK(d.text() == "new");
  CHECK(d.version() == 6);
}

TEST_CASE("file URIs round-trip with percent-encoding") {
  CHECK(pathFromUri("file:///tmp/a%20b/c%C3%A9.mdh") == "/tmp/a b/cé.mdh");
  CHECK(uriFromPath("/tmp/a b/cé.mdh") == "file:///tmp/a%20b/c%C3%A9.mdh");
  CHECK(pathFromUri(uriFromPath("/x/y+z#1.mdh")) == "/x/y+z#1.mdh");
  CHECK(pathFromUri("file://localhost/etc/x.mdh") == "/etc/x.mdh");
  CHECK(pathFromUri("untitled:Untitled-1") == "untitled:Untitled-1");
}

TEST_CASE("the lexer-only API agrees with the grammar's reserved words") {
  CHECK(isReservedWord("md_hom"));
  CHECK(isReservedWord("true"));
  CHECK(!isReservedWord("o"));
  CHECK(!isReservedWord("pw"));
  auto toks = lexTokens("/* c */ fn f(x: f32) -> f32 = x ∘ 1.5; // end\n@");
  REQUIRE(toks.size() >= 5);
  CHECK(toks[0].kind == LexToken::Kind::Comment);
  CHECK(toks[1].kind == LexToken::Kind::Keyword);
  CHECK(toks[1].text == "fn");
  CHECK(toks[1].begin == 8);
  CHECK(toks.back().kind == LexToken::Kind::Operator);
  // Invalid UTF-8 becomes U+FFFD, one code point per bad byte, as SourceFile decodes it.
  auto bad = lexTokens(std::string("a \xff b"));
  REQUIRE(bad.size() == 3);
  CHECK(bad[2].begin == 4);
}

TEST_CASE("the token cache equals a full re-lex after random edits") {
  std::ifstream in(std::string(MDH_TEST_SOURCE_DIR) + "/examples/prl.mdh");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::u32string cps = decodeUtf8(text);
  TokenCache cache(text);
  std::mt19937 rng(12345);
  const char *pieces[] = {"/*", "*/", "//", "\n", "1", "e", "+", "5", ".", "-", ">", "x", " ", "fn", "\"", "∘", "😀",
                          "///", "/", "*", "{", "}"};
  for (int i = 0; i < 3000; ++i) {
    uint32_t a = uint32_t(rng() % (cps.size() + 1));
    uint32_t b = std::min<uint32_t>(uint32_t(cps.size()), a + uint32_t(rng() % 6));
    std::string ins = rng() % 3 ? pieces[rng() % (sizeof pieces / sizeof *pieces)] : "";
    cache.edit(a, b, ins);
    cps.replace(a, b - a, decodeUtf8(ins));
    REQUIRE(cache.text() == cps);
    auto full = lexTokens(encodeUtf8(cps));
    if (!sameTokens(*cache.tokens(), full)) {
      FAIL("token cache diverged after edit " << i << " at " << a << ".." << b << " inserting `" << ins << "`");
    }
  }
}

TEST_CASE("JSON-RPC framing: whole messages, junk reported, end of input") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::string input = "Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"
                      "Content-Length: 5\r\n\r\n{bad}"
                      "Content-Type: x\r\ncontent-length: 2\r\n\r\n{}";
  REQUIRE(write(fds[1], input.data(), input.size()) == ssize_t(input.size()));
  close(fds[1]);
  Transport t(fds[0], -1);
  nlohmann::json m;
  std::string err;
  CHECK(t.read(m, err) == Transport::ReadResult::Message);
  CHECK(m["jsonrpc"] == "2.0");
  CHECK(t.read(m, err) == Transport::ReadResult::Malformed);
  CHECK(t.read(m, err) == Transport::ReadResult::Message);
  CHECK(m.is_object());
  CHECK(t.read(m, err) == Transport::ReadResult::Eof);
  close(fds[0]);
}

namespace {
/// Feeds `input` to a Transport and lists what read() returns until the end:
/// the `id` of each message, `bad` for each Malformed report, then `eof`.
std::vector<std::string> framesOf(const std::string &input) {
  // A temporary file, not a pipe: inputs may exceed a pipe's buffer.
  FILE *file = std::tmpfile();
  REQUIRE(file);
  const int fd = fileno(file);
  REQUIRE(write(fd, input.data(), input.size()) == ssize_t(input.size()));
  REQUIRE(lseek(fd, 0, SEEK_SET) == 0);
  Transport t(fd, -1);
  std::vector<std::string> out;
  for (;;) {
    nlohmann::json m;
    std::string err;
    auto r = t.read(m, err);
    if (r == Transport::ReadResult::Eof) break;
    out.push_back(r == Transport::ReadResult::Malformed ? "bad" : m.value("id", nlohmann::json("-")).dump());
    if (out.size() > 20) break;
  }
  out.push_back("eof");
  std::fclose(file);
  return out;
}

std::string frame(int id) {
  std::string body = "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"method\":\"shutdown\"}";
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string withLength(const std::string &length, int id) {
  std::string f = frame(id);
  return "Content-Length: " + length + f.substr(f.find("\r\n"));
}
} // namespace

TEST_CASE("JSON-RPC framing: a bad Content-Length costs its own message only, reported once") {
  using V = std::vector<std::string>;
  const std::string next = frame(2) + frame(3);
  CHECK(framesOf(withLength("5", 1) + next) == V{"bad", "2", "3", "eof"});    // too small
  CHECK(framesOf(withLength("500", 1) + next) == V{"bad", "2", "3", "eof"});  // too large
  CHECK(framesOf(withLength("abc", 1) + next) == V{"bad", "2", "3", "eof"});  // not a number
  CHECK(framesOf(withLength("-5", 1) + next) == V{"bad", "2", "3", "eof"});   // negative
  CHECK(framesOf(withLength("", 1) + next) == V{"bad", "2", "3", "eof"});     // empty
  CHECK(framesOf(withLength("99999999999", 1) + next) == V{"bad", "2", "3", "eof"}); // over the limit
  CHECK(framesOf("junk before the first header" + next) == V{"bad", "2", "3", "eof"});
  CHECK(framesOf(frame(1) + "}}junk between messages" + next) == V{"1", "bad", "2", "3", "eof"});
}

TEST_CASE("JSON-RPC framing: the rest of a body cut before `word:` is not taken for a header") {
  using V = std::vector<std::string>;
  const std::string body = "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"uri\":\"file:///a.mdh\"}}";
  const std::string cut = "Content-Length: " + std::to_string(body.find("file:")) + "\r\n\r\n" + body;
  CHECK(framesOf(cut + frame(2)) == V{"bad", "2", "eof"});
}

TEST_CASE("JSON-RPC framing: nesting deeper than the limit is one bad message, not a crash") {
  using V = std::vector<std::string>;
  auto nested = [](size_t depth) {
    std::string body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$/x\",\"params\":" + std::string(depth, '[') +
                       std::string(depth, ']') + "}";
    return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  CHECK(framesOf(nested(200000) + frame(2)) == V{"bad", "2", "eof"});
  CHECK(framesOf(nested(Transport::kMaxNesting - 1) + frame(2)) == V{"1", "2", "eof"});
  // Brackets inside strings do not count.
  const std::string body = "{\"id\":1,\"s\":\"" + std::string(100000, '[') + "\"}";
  CHECK(framesOf("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body) == V{"1", "eof"});
}

TEST_CASE("JSON-RPC framing: LF-only header lines are accepted") {
  using V = std::vector<std::string>;
  CHECK(framesOf("Content-Length: 2\n\n{}" + frame(2)) == V{"\"-\"", "2", "eof"});
  CHECK(framesOf("Content-Type: x\nContent-Length: 2\r\n\n{}" + frame(2)) == V{"\"-\"", "2", "eof"});
}

TEST_CASE("JSON-RPC framing: a too large Content-Length does not wait for bytes that never come") {
  // The writing end stays open: the transport must not block once the next header has arrived.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  std::string input = withLength("100000", 1) + frame(2);
  REQUIRE(write(fds[1], input.data(), input.size()) == ssize_t(input.size()));
  Transport t(fds[0], -1);
  nlohmann::json m;
  std::string err;
  CHECK(t.read(m, err) == Transport::ReadResult::Malformed);
  CHECK(err.find("does not match") != std::string::npos);
  REQUIRE(t.read(m, err) == Transport::ReadResult::Message);
  CHECK(m["id"] == 2);
  close(fds[1]);
  CHECK(t.read(m, err) == Transport::ReadResult::Eof);
  close(fds[0]);
}
