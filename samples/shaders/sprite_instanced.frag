#version 450
// sprite.frag for merged draws: the sprite's colour and parameters arrive from sprite_instanced.vert.
layout(set = 0, binding = 4) uniform sampler2D image;

layout(location = 0) in vec2 uv;
layout(location = 1) flat in vec4 spriteColor;
layout(location = 2) flat in vec4 params;
layout(location = 0) out vec4 color;

void main() {
  vec4 c = texture(image, uv) * spriteColor;
  if (params.w > 0.5) {
    float d = length(uv - 0.5) * 2.0;
    c.a *= clamp((1.0 - d) * 4.0, 0.0, 1.0);  // a disc with a soft edge
  }
  if (params.z > 0.5) c.rgb *= c.a;
  color = c;
}
