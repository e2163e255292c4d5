using PerfLab.Common;

namespace PerfLab.Tests.Micro;

internal static class MicroTestFiles
{
    // The source tree perflab was built from, as perflab itself finds it.
    public static string RepoRoot => PerfLabPaths.RepoRoot;

    public static string Samples => Path.Combine(RepoRoot, "tests", "PerfLab.Tests", "Micro", "Samples");

    public static string BenchSources => Path.Combine(RepoRoot, "bench", "PerfLab.Micro");
}
