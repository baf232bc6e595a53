#pragma once
// Everything an app needs to render with reel, in one include (docs/app-guide.md walks through it):
// the renderer, buckets, keys and commands, resource requests, devices and readback, frame observers,
// and, when the app links them, the Vulkan device (reel::vulkan) and capture (reel::capture).

#include "reel/runtime/command_bucket.h"
#include "reel/runtime/commands.h"
#include "reel/runtime/descriptors.h"
#include "reel/runtime/device.h"
#include "reel/runtime/draw_key.h"
#include "reel/runtime/enums.h"
#include "reel/runtime/frame.h"
#include "reel/runtime/handle.h"
#include "reel/runtime/null_device.h"
#include "reel/runtime/readback.h"
#include "reel/runtime/renderer.h"
#include "reel/runtime/resource_context.h"
#include "reel/runtime/result.h"
#include "reel/runtime/tags.h"

// The optional libraries: present in an installed prefix, and on the include path of a target that
// links them.
#if __has_include("reel/vulkan/vulkan_device.h")
#include "reel/vulkan/vulkan_device.h"
#endif
#if __has_include("reel/capture/capture.h")
#include "reel/capture/capture.h"
#include "reel/capture/environment.h"
#endif
