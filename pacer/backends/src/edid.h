// edid.h: the refresh range a display states in its EDID (VESA E-EDID 1.4,
// the Display Range Limits descriptor, tag 0xFD), for a VRR panel's range.
// Internal to the backends; header-only so that the unit tests read it too.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pacer::backends::detail {

struct EdidRange {
    int min_hz = 0;   // vertical rate limits, Hz
    int max_hz = 0;
};

// The base block's four 18-byte descriptors (at 54, 72, 90, 108): a display
// descriptor starts with three zero bytes, its tag at byte 3. In the range
// limits (tag 0xFD), byte 5 is the minimum vertical rate and byte 6 the
// maximum; EDID 1.4 adds 255 to the maximum where bit 1 of byte 4 is set and
// to the minimum where bit 0 is too. False without a 128-byte block holding
// EDID's header and a range with 0 < min < max.
inline bool edid_vertical_range(const uint8_t* edid, size_t size, EdidRange* out) {
    static const uint8_t kHeader[8] = {0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00};
    if (edid == nullptr || size < 128) return false;
    for (int i = 0; i < 8; ++i)
        if (edid[i] != kHeader[i]) return false;
    for (size_t at = 54; at + 18 <= 126; at += 18) {
        const uint8_t* d = edid + at;
        if (d[0] != 0 || d[1] != 0 || d[2] != 0 || d[3] != 0xFD) continue;
        const int offsets = d[4];
        const int max_hz = d[6] + ((offsets & 0x02) != 0 ? 255 : 0);
        const int min_hz = d[5] + ((offsets & 0x03) == 0x03 ? 255 : 0);
        if (min_hz <= 0 || max_hz <= min_hz) return false;
        *out = {min_hz, max_hz};
        return true;
    }
    return false;
}

}  // namespace pacer::backends::detail
