#version 450
layout(location = 0) in vec2 uv;
layout(location = 1) in vec4 tint;
layout(location = 0) out vec4 color;

void main() {
  float d = length(uv - 0.5) * 2.0;
  float a = tint.a * clamp((1.0 - d) * 3.0, 0.0, 1.0);
  color = vec4(tint.rgb * a, a);  // premultiplied
}
