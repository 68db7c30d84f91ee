#pragma once
#include "lanes/f32.hpp"
#include "lanes/h16x2.hpp"
#include "lanes/s16x2.hpp"
#include "lanes/s32.hpp"
#include "lanes/s8x4.hpp"
#include "lanes/u8x4.hpp"
