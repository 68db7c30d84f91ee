#pragma once
/// \file
/// Every lane type of the GPU and its host twin: s8x4, u8x4, s16x2, h16x2, s32, f32.
#include "lanes/f32.hpp"
#include "lanes/h16x2.hpp"
#include "lanes/s16x2.hpp"
#include "lanes/s32.hpp"
#include "lanes/s8x4.hpp"
#include "lanes/u8x4.hpp"
