using System.Reflection;
using PerfLab.Cli;

namespace PerfLab.Tests.Micro;

internal static class MicroTestFiles
{
    // The source tree perflab was built from, as perflab itself finds it.
    public static string RepoRoot { get; } = typeof(PerfLabCli).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>()
        .Single(a => a.Key == "PerfLab.RepoRoot").Value!;

    public static string Samples => Path.Combine(RepoRoot, "tests", "PerfLab.Tests", "Micro", "Samples");

    public static string BenchSources => Path.Combine(RepoRoot, "bench", "PerfLab.Micro");
}
