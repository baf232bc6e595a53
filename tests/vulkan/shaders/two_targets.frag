#version 450
// Writes two color attachments: the sprite color, and its complement.
layout(set = 0, binding = 4) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 rect;
  vec4 color;
  vec4 params;
} push;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 first;
layout(location = 1) out vec4 second;

void main() {
  vec4 c = texture(image, uv) * push.color;
  first = c;
  second = vec4(1.0 - c.rgb, c.a);
}
