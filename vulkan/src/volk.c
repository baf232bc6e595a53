/* volk's implementation, compiled under reel's own names (reel_volk_names.h, generated from volk.h at
 * configure time): the loader's function pointers and volk's functions are not global `vk*`/`volk*`
 * symbols, so an app that loads Vulkan itself (libvulkan, or its own volk) keeps its own. */
#include "reel_volk_names.h"

#include <volk.c>
