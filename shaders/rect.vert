#version 330 core
// One axis-aligned rectangle per instance, in pixels with the origin at the
// top-left of the framebuffer. The four corners come from gl_VertexID
// (drawn as a triangle strip), so there is no vertex buffer, only the
// per-instance rectangles.
layout(location = 0) in vec4 a_rect;    // x, y, width, height (px)
layout(location = 1) in vec4 a_color;   // straight RGBA

uniform vec2 u_framebuffer_px;

out vec4 v_color;

void main() {
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vec2 px = a_rect.xy + corner * a_rect.zw;
    vec2 ndc = px / u_framebuffer_px * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    v_color = a_color;
}
