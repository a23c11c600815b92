// Everything a model, plugin or program needs from the core, in one include.
#pragma once

#include "attnlab/autodiff/ops.hpp"
#include "attnlab/autodiff/var.hpp"
#include "attnlab/gradcheck.hpp"
#include "attnlab/nn/embedding.hpp"
#include "attnlab/nn/forward_context.hpp"
#include "attnlab/nn/init.hpp"
#include "attnlab/nn/layer_norm.hpp"
#include "attnlab/nn/linear.hpp"
#include "attnlab/nn/params.hpp"
#include "attnlab/rng.hpp"
#include "attnlab/tensor.hpp"
