#pragma once
// Everything the tests share, in one include: the scene library's generator and catalogue of
// hard boxes, seeded random scenes and their bounds, query generators, configurations,
// comparisons that print a readable difference, gtest printers, and thread arenas.

#include "agrid/agrid.h"
#include "agrid_scenes/adversarial.h"
#include "agrid_scenes/boxes.h"
#include "agrid_scenes/random.h"
#include "support/arena.h"
#include "support/comparisons.h"
#include "support/configs.h"
#include "support/printers.h"
#include "support/queries.h"
#include "support/random_scenes.h"
#include "support/scene_bounds.h"
