// attnlab on a real Slurm: tests/slurm/sweep_on_slurm.sh starts a one-node cluster (munged,
// slurmctld, slurmd from Debian's slurm-wlm and munge, installed by .ci/setup), submits a sweep
// with `attnlab slurm --submit`, cancels a task mid-run, submits again (only that task, which
// resumes from its checkpoint), and compares the merged file with a one-machine run bit for
// bit; the daemons are stopped by their process ids. A cluster that cannot start is a failure
// with its reason, never a skip.
#include <catch2/catch.hpp>

#include "test_support.hpp"

TEST_CASE("slurm: a sweep as a job array, cancelled, resubmitted and merged, equals one machine's file", "[slurm]") {
  attn::test::TempDir dir{"attnlab-slurm"};
  const auto out = attn::test::command_output("bash " + attn::test::source_root + "/tests/slurm/sweep_on_slurm.sh " +
                                              std::string(ATTNLAB_BUILD_ROOT) + " " + dir.path.string() + " 2>&1");
  INFO(out.text);
  CHECK(out.status == 0);
  CHECK_THAT(out.text, Catch::Contains("0 differences between") && Catch::Contains("slurm sweep: ok"));
}
