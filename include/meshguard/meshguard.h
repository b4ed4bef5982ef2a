#pragma once

// The meshguard runtime: a C++ DTensor for libtorch. Link meshguard::runtime.

#include <meshguard/runtime/CallSite.h>
#include <meshguard/runtime/Checkpoint.h>
#include <meshguard/runtime/CollectiveGuard.h>
#include <meshguard/runtime/Collectives.h>
#include <meshguard/runtime/DTensor.h>
#include <meshguard/runtime/DTensorImpl.h>
#include <meshguard/runtime/DebugCollectives.h>
#include <meshguard/runtime/DeviceMesh.h>
#include <meshguard/runtime/Errors.h>
#include <meshguard/runtime/Factories.h>
#include <meshguard/runtime/Module.h>
#include <meshguard/runtime/FullyShard.h>
#include <meshguard/runtime/Parallelize.h>
#include <meshguard/runtime/Placement.h>
#include <meshguard/runtime/ShardingRules.h>
#include <meshguard/runtime/UserOps.h>
