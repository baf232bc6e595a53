#version 450
layout(set = 0, binding = 4) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 rect;
  vec4 color;
  vec4 params;
} push;

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;

void main() {
  vec4 c = texture(image, uv) * push.color;
  if (push.params.w > 0.5) {
    float d = length(uv - 0.5) * 2.0;
    c.a *= clamp((1.0 - d) * 4.0, 0.0, 1.0);  // a disc with a soft edge
  }
  if (push.params.z > 0.5) c.rgb *= c.a;
  color = c;
}
