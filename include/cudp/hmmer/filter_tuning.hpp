#pragma once
// The menus of striped shapes compiled for HMMER's filters (MSV and SSV, the Viterbi filter, Forward) on the GPU,
// run by engine/device_striped.cuh's DeviceStripedRunner, which picks the cheapest shape of a menu that holds a model
// (engine/striped_tuning.hpp). Each entry is a kernel compiled per policy: the menus trade compile time for padding,
// and were tuned by shape sweeps of the filters on an H100.
#include "../engine/striped_tuning.hpp"

namespace cudp::hmmer {

// Small groups with many segments cost least per row (engine::striped_row_cost). MSV keeps one word per segment in
// registers; the Viterbi filter eleven (three states, eight transitions), which caps Q. Groups of two and four
// warps (G 64, 128: tiers/striped_rows.cuh's BlockStripedGroup, exchanging through shared memory behind a barrier)
// take the models past what one warp holds well; measured on an H100 they lose to one warp wherever one warp holds
// the model in registers (MSV at 3900 nodes: 6650 GCUPS on G32 Q64, 5473 on G64 Q32). G16 Q36 and Q40 close the
// gap between 1024 and 1536 nodes: SMC_N's 1142 nodes padded to 1536 on G16 Q48.
using MsvMenu = engine::StripedMenu<engine::StripedShapeOf<4, 4>, engine::StripedShapeOf<4, 8>,
                                    engine::StripedShapeOf<4, 16>, engine::StripedShapeOf<4, 32>,
                                    engine::StripedShapeOf<8, 24>, engine::StripedShapeOf<8, 32>,
                                    engine::StripedShapeOf<8, 48>, engine::StripedShapeOf<16, 32>,
                                    engine::StripedShapeOf<16, 36>, engine::StripedShapeOf<16, 40>,
                                    engine::StripedShapeOf<16, 48>, engine::StripedShapeOf<32, 32>,
                                    engine::StripedShapeOf<32, 40>, engine::StripedShapeOf<32, 48>,
                                    engine::StripedShapeOf<32, 64>, engine::StripedShapeOf<128, 32>>;
// Padding costs the Viterbi filter in full (a shape sweep on an H100: 86 nodes ran at 1084 GCUPS on G4 Q12 and 902
// on G4 Q16; 1100 nodes at 1211 on G32 Q20 and 970 on G32 Q24), hence the closely spaced entries. Past 2048 nodes
// one warp would need more than 32 segments, which read their transitions from the table and spill: two warps of 20
// segments run 2400 nodes at 873 GCUPS against 698 on G32 Q40, which is left out.
using ViterbiMenu = engine::StripedMenu<engine::StripedShapeOf<4, 8>, engine::StripedShapeOf<4, 12>,
                                        engine::StripedShapeOf<4, 16>, engine::StripedShapeOf<8, 12>,
                                        engine::StripedShapeOf<8, 16>, engine::StripedShapeOf<16, 12>,
                                        engine::StripedShapeOf<16, 16>, engine::StripedShapeOf<32, 12>,
                                        engine::StripedShapeOf<32, 16>, engine::StripedShapeOf<32, 20>,
                                        engine::StripedShapeOf<32, 24>, engine::StripedShapeOf<32, 32>,
                                        engine::StripedShapeOf<64, 20>, engine::StripedShapeOf<128, 20>>;

// Forward in f32: one node per word, three state words per segment; transitions from the table past 24. Past 1536
// nodes one warp spills heavily: four-warp groups take 1537 to 3072 (2000 nodes: 532 GCUPS).
using ForwardMenu = engine::StripedMenu<engine::StripedShapeOf<4, 8>, engine::StripedShapeOf<4, 16>,
                                        engine::StripedShapeOf<8, 16>, engine::StripedShapeOf<16, 16>,
                                        engine::StripedShapeOf<32, 12>, engine::StripedShapeOf<32, 16>,
                                        engine::StripedShapeOf<32, 24>, engine::StripedShapeOf<32, 40>,
                                        engine::StripedShapeOf<32, 48>, engine::StripedShapeOf<128, 16>,
                                        engine::StripedShapeOf<128, 24>>;

}  // namespace cudp::hmmer
