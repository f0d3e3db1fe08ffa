// Files: the output rules (regular files or new, links written through,
// unique temporary files, nothing replaced before it is complete), the
// bounded input reader, and the text made safe for terminals and JSON.
#include "run/atomic_file.h"
#include "run/chrome_trace.h"
#include "run/files.h"
#include "run/scenario.h"
#include "run/summary.h"

#include <gtest/gtest.h>

#ifndef _WIN32
#include <sys/stat.h>
#include <sys/sysmacros.h>
#endif

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pacer_demo {
namespace {

namespace fs = std::filesystem;

// A fresh, empty folder for one test.
std::string fresh_dir(const std::string& name) {
    const std::string dir = ::testing::TempDir() + "pacer_files_" + name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream out;
    out << file.rdbuf();
    return out.str();
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> names_in(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(Files, WriteAtomicallyAndReportBadPaths) {
    const std::string dir = fresh_dir("atomic");
    const std::string path = dir + "/summary.json";
    EXPECT_EQ(check_writable(path), "");
    EXPECT_TRUE(names_in(dir).empty()) << "the check leaves nothing behind";
    EXPECT_EQ(write_file_atomically(path, "{\"a\": 1}\n"), "");
    EXPECT_EQ(slurp(path), "{\"a\": 1}\n");
    EXPECT_EQ(names_in(dir), std::vector<std::string>{"summary.json"});

    const std::string bad = "/nonexistent-pacer-dir/summary.json";
    EXPECT_EQ(check_writable(bad).rfind("cannot write " + bad + ": ", 0), 0u);
    EXPECT_EQ(write_file_atomically(bad, "x").rfind("cannot write " + bad + ": ", 0), 0u);
    EXPECT_NE(check_writable(dir).find("a directory, not a regular file"), std::string::npos);
    EXPECT_FALSE(check_writable("").empty());
    fs::remove_all(dir);
}

TEST(Files, OldContentStaysUntilTheNewIsComplete) {
    const std::string dir = fresh_dir("old");
    const std::string path = dir + "/out.csv";
    spit(path, "old\n");
    {
        AtomicFile file(path, "trace: ");
        ASSERT_TRUE(file.ok()) << file.error();
        std::fputs("new, half", file.get());
        EXPECT_EQ(slurp(path), "old\n") << "not truncated at the start";
        EXPECT_EQ(fs::path(file.temp_path()).parent_path(), fs::path(path).parent_path());
    }   // never closed: abandoned
    EXPECT_EQ(slurp(path), "old\n");
    EXPECT_EQ(names_in(dir), std::vector<std::string>{"out.csv"}) << "the temporary file is gone";
    EXPECT_EQ(write_file_atomically(path, "new\n"), "");
    EXPECT_EQ(slurp(path), "new\n");
    fs::remove_all(dir);
}

TEST(Files, TheCheckDoesNotTouchAnotherWritersTemporaryFile) {
    const std::string dir = fresh_dir("other");
    const std::string path = dir + "/s.json";
    spit(path + ".tmp", "someone else's");
    EXPECT_EQ(check_writable(path), "");
    EXPECT_EQ(write_file_atomically(path, "x"), "");
    EXPECT_EQ(slurp(path + ".tmp"), "someone else's");
    fs::remove_all(dir);
}

TEST(Files, ANameOfAllTheBytesANameMayHaveIsWritten) {
    // The temporary file's name is its own, not the target's plus a suffix,
    // which would be too long for a name near the limit (255 bytes here).
    const std::string dir = fresh_dir("long");
    const std::string path = dir + "/" + std::string(251, 'n') + ".csv";
    EXPECT_EQ(check_writable(path), "");
    EXPECT_EQ(write_file_atomically(path, "x\n"), "");
    EXPECT_EQ(slurp(path), "x\n");
    EXPECT_EQ(names_in(dir).size(), 1u);
    fs::remove_all(dir);
}

TEST(Files, TwoWritersOfOnePathGetTheirOwnTemporaryFiles) {
    const std::string dir = fresh_dir("two");
    const std::string path = dir + "/o";
    {
        AtomicFile a(path, ""), b(path, "");
        ASSERT_TRUE(a.ok() && b.ok());
        EXPECT_NE(a.temp_path(), b.temp_path());
    }   // (closed before the folder goes: Windows keeps open files)
    EXPECT_TRUE(names_in(dir).empty());
    fs::remove_all(dir);
}

#ifndef _WIN32
TEST(Files, DevicesAndFifosAreRefusedAndLeftAlone) {
    // The machine's /dev/null is never the target: a regression would
    // replace it. As root, private copies made with mknod are; otherwise the
    // check only reads /dev/null's kind, which cannot harm it.
    const std::string devices = fresh_dir("devices");
    for (const auto& [name, minor] : {std::pair<const char*, unsigned>{"null", 3}, {"full", 7}}) {
        const std::string device = devices + "/" + name;
        if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, minor)) != 0) continue;   // not root
        const std::string problem = write_file_atomically(device, "x");
        EXPECT_NE(problem.find("a character device, not a regular file"), std::string::npos) << problem;
        EXPECT_EQ(fs::symlink_status(device).type(), fs::file_type::character) << device << " still a device";
    }
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    fs::remove_all(devices);
    const std::string dir = fresh_dir("fifo");
    const std::string fifo = dir + "/pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(check_writable(fifo).find("a FIFO"), std::string::npos);
    std::string text;
    const std::string problem = read_input_file(fifo, kMaxInputBytes, &text);   // must not block
    EXPECT_NE(problem.find("a FIFO, not a regular file"), std::string::npos) << problem;
    EXPECT_EQ(fs::symlink_status(fifo).type(), fs::file_type::fifo);
    fs::remove_all(dir);
}

TEST(Files, LinksAreWrittenThroughAndStayLinks) {
    const std::string dir = fresh_dir("links");
    const std::string target = dir + "/target.csv", link = dir + "/link.csv";
    spit(target, "old");
    fs::create_symlink("target.csv", link);
    EXPECT_EQ(write_file_atomically(link, "new"), "");
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(slurp(target), "new");

    const std::string dangling = dir + "/dangling", to_device = dir + "/stdout";
    fs::create_symlink("missing", dangling);
    fs::create_symlink("/dev/null", to_device);   // refused before anything is written
    EXPECT_NE(check_writable(dangling).find("dangling"), std::string::npos);
    EXPECT_NE(check_writable(to_device).find("a symbolic link to a character device"), std::string::npos);
    EXPECT_TRUE(fs::is_symlink(to_device));
    EXPECT_FALSE(fs::exists(dir + "/missing"));
    fs::remove_all(dir);
}
#endif

TEST(Files, SameFileSeesThroughSpellingsAndLinks) {
    const std::string dir = fresh_dir("same");
    spit(dir + "/a", "a");
    EXPECT_TRUE(same_file(dir + "/a", dir + "/./a"));
    EXPECT_TRUE(same_file(dir + "/new", dir + "/../pacer_files_same/new")) << "files that do not exist yet too";
    EXPECT_FALSE(same_file(dir + "/a", dir + "/b"));
#ifndef _WIN32
    fs::create_symlink("a", dir + "/l");
    EXPECT_TRUE(same_file(dir + "/a", dir + "/l"));
#endif
    fs::remove_all(dir);
}

TEST(Files, InputsAreBounded) {
    const std::string dir = fresh_dir("inputs");
    std::string text;
    spit(dir + "/small", "end frame 3\n");
    EXPECT_EQ(read_input_file(dir + "/small", 100, &text), "");
    EXPECT_EQ(text, "end frame 3\n");
    spit(dir + "/big", std::string(101, '#'));
    EXPECT_NE(read_input_file(dir + "/big", 100, &text).find("more than"), std::string::npos);
    EXPECT_NE(read_input_file(dir, 100, &text).find("a directory, not a regular file"), std::string::npos);
    EXPECT_NE(read_input_file(dir + "/none", 100, &text).find("cannot open"), std::string::npos);
    fs::remove_all(dir);
}

TEST(Files, ScenarioWithByteOrderMarkIsRead) {
    const std::string dir = fresh_dir("bom");
    spit(dir + "/s.txt", "\xEF\xBB\xBF" "end frame 3\n");
    Scenario scenario;
    EXPECT_EQ(parse_scenario_file(dir + "/s.txt", &scenario), "");
    ASSERT_TRUE(scenario.end.has_value());
    EXPECT_EQ(scenario.end->frame, 3);
    fs::remove_all(dir);
}

TEST(Text, PrintableEscapesWhatATerminalWouldNotShow) {
    EXPECT_EQ(printable("plain: 60 Hz, µs"), "plain: 60 Hz, µs");
    EXPECT_EQ(printable("\xEF\xBB\xBFhz"), "\\xef\\xbb\\xbfhz");
    EXPECT_EQ(printable("a\x1b[31mb\x7f"), "a\\x1b[31mb\\x7f");
    EXPECT_EQ(printable("bad \xff\xfe end"), "bad \\xff\\xfe end");
    EXPECT_EQ(printable("cut \xE2\x82"), "cut \\xe2\\x82");
}

TEST(Text, ValidUtf8ReplacesInvalidBytes) {
    EXPECT_EQ(valid_utf8("ok µs"), "ok µs");
    EXPECT_EQ(valid_utf8("a\xff" "b"), "a\xEF\xBF\xBD" "b");
    EXPECT_EQ(valid_utf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD") << "overlong";
    EXPECT_EQ(valid_utf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD") << "surrogate";
}

TEST(Text, JsonOutputsAreValidUtf8WhateverTheNames) {
    RunReport report{};
    report.info = {{"scenario", "caf\xe9.txt"}};
    report.brief = {"scenario caf\xe9.txt"};
    const std::string json = summary_json(report);   // nlohmann would throw on the raw byte
    EXPECT_NE(json.find("caf\xEF\xBF\xBD.txt"), std::string::npos);
    EXPECT_NE(summary_text(report).find("caf\\xe9.txt"), std::string::npos) << "the text shows the byte";

    const std::string dir = fresh_dir("json");
    const std::string path = dir + "/c.json";
    {
        ChromeTraceWriter writer(path, "pacer-demo caf\xe9.txt");
        pacer::Frame frame{};
        writer.write(frame, "", "mark \xff\xfe");
        ASSERT_EQ(writer.close(), "");
    }
    const std::string text = slurp(path);
    EXPECT_EQ(valid_utf8(text), text);
    EXPECT_NE(text.find("caf\xEF\xBF\xBD.txt"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace pacer_demo
