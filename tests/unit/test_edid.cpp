// test_edid.cpp: the refresh range read from an EDID's Display Range Limits
// descriptor (pacer/backends/src/edid.h), what the X11 Hosts give as a VRR
// panel's range.
#include "edid.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using pacer::backends::detail::edid_vertical_range;
using pacer::backends::detail::EdidRange;

namespace {

// A base block with EDID's header and, in its second descriptor, the range
// limits: vertical min_hz..max_hz with the offset flags given.
std::vector<uint8_t> edid_with_range(uint8_t min_hz, uint8_t max_hz, uint8_t offsets = 0) {
    std::vector<uint8_t> edid(128, 0);
    const uint8_t header[8] = {0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00};
    for (int i = 0; i < 8; ++i) edid[i] = header[i];
    edid[54] = 0x01;   // the first descriptor: a detailed timing (pixel clock != 0)
    uint8_t* d = &edid[72];
    d[3] = 0xFD;
    d[4] = offsets;
    d[5] = min_hz;
    d[6] = max_hz;
    return edid;
}

}  // namespace

TEST(Edid, ReadsTheVerticalRange) {
    const std::vector<uint8_t> edid = edid_with_range(48, 144);
    EdidRange range;
    ASSERT_TRUE(edid_vertical_range(edid.data(), edid.size(), &range));
    EXPECT_EQ(range.min_hz, 48);
    EXPECT_EQ(range.max_hz, 144);
}

TEST(Edid, AddsTheOffsetsOfEdid14) {
    const std::vector<uint8_t> edid = edid_with_range(48, 105, 0x02);   // max + 255: 360 Hz
    EdidRange range;
    ASSERT_TRUE(edid_vertical_range(edid.data(), edid.size(), &range));
    EXPECT_EQ(range.min_hz, 48);
    EXPECT_EQ(range.max_hz, 360);
}

TEST(Edid, RefusesWhatIsNoRange) {
    EdidRange range;
    std::vector<uint8_t> edid = edid_with_range(48, 144);
    EXPECT_FALSE(edid_vertical_range(edid.data(), 127, &range));   // short
    EXPECT_FALSE(edid_vertical_range(nullptr, 128, &range));
    edid[1] = 0;   // no header
    EXPECT_FALSE(edid_vertical_range(edid.data(), edid.size(), &range));
    EXPECT_FALSE(edid_vertical_range(edid_with_range(144, 48).data(), 128, &range));   // min above max
    EXPECT_FALSE(edid_vertical_range(edid_with_range(0, 0).data(), 128, &range));
    std::vector<uint8_t> none = edid_with_range(48, 144);
    none[75] = 0xFC;   // a monitor name, not a range
    EXPECT_FALSE(edid_vertical_range(none.data(), none.size(), &range));
}
