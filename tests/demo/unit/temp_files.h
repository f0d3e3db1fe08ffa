// temp_files.h: where the tests of the demo's writers (trace, Chrome trace)
// write, and whether a writer left its temporary file behind.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace pacer_demo::test_files {

// The path "out" in a folder of its own for name, emptied of what a run
// before left; name is unique across the tests, which ctest runs side by side.
inline std::string temp_path(const std::string& name) {
    const std::string folder = ::testing::TempDir() + "pacer_demo_" + name;
    std::filesystem::remove_all(folder);
    std::filesystem::create_directories(folder);
    return folder + "/out";
}

// Whether a writer's temporary file (".pacer-XXXXXX") is left beside path.
inline bool has_temp(const std::string& path) {
    const std::string prefix = ".pacer-";
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
        if (entry.path().filename().string().rfind(prefix, 0) == 0) return true;
    return false;
}

}  // namespace pacer_demo::test_files
