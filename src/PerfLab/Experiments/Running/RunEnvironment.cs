using System.Runtime.InteropServices;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>Provenance and CPU layout of the machine a run measures on.</summary>
public static class RunEnvironment
{
    /// <summary>Below this many cores the SUT, the generator and PostgreSQL cannot each get their own.</summary>
    public const int MinCoresToPin = 4;

    /// <summary>
    /// The run's provenance. Started when the run starts and awaited when it ends: `dotnet --version` and git can take
    /// seconds on a loaded machine, which an interrupted run must not wait for after Ctrl+C.
    /// </summary>
    /// <param name="repetitions">The blocks each variant runs at least (the request's, or the longest profile's).</param>
    public static async Task<Provenance> DescribeAsync(RunRequest request, int repetitions, CancellationToken ct)
    {
        var commit = RunAsync("git", ["-C", PerfLabPaths.RepoRoot, "rev-parse", "--short=12", "HEAD"], ct);
        var status = RunAsync("git", ["-C", PerfLabPaths.RepoRoot, "status", "--porcelain", "--untracked-files=no"], ct);
        var sdk = RunAsync("dotnet", ["--version"], ct);
        return new Provenance
        {
            Commit = PerfLabPaths.Packaged ? PerfLabPaths.PackageDescription
                : await commit is { Length: > 0 } c ? c + (await status is { Length: > 0 } ? " (modified)" : "") : "unknown",
            SdkVersion = await sdk is { Length: > 0 } v ? v : "unknown",
            RuntimeVersion = RuntimeInformation.FrameworkDescription,
            CpuModel = CpuModel(),
            LogicalCores = Environment.ProcessorCount,
            OperatingSystem = RuntimeInformation.OSDescription,
            CoreLayout = request.Layout,
            Database = request.DatabaseDescription,
            Profile = request.Profile.Key(),
            Repetitions = repetitions,
            AaMode = request.Aa,
            Hosts = request.Hosts,
        };
    }

    /// <summary>
    /// Where each party runs. On a machine with fewer than <see cref="MinCoresToPin"/> cores nothing is pinned:
    /// pinning the SUT to one of two cores would turn Server GC into workstation GC (the runtime needs two CPUs for
    /// it) and halve the SUT's capacity, which changes the question the seeds asked.
    /// </summary>
    public static CoreLayout PlanLayout(bool? pinRequested)
    {
        var cores = Environment.ProcessorCount;
        var canPin = OperatingSystem.IsLinux() && File.Exists("/usr/bin/taskset");
        if (pinRequested == false || !canPin || (pinRequested is null && cores < MinCoresToPin))
        {
            var why = pinRequested == false ? "pinning switched off (--no-pin)"
                : !canPin ? "taskset is not available"
                : $"only {cores} cores: the SUT, the load generator and PostgreSQL share them (pinning the SUT to one core would disable "
                    + "Server GC); pass --pin to pin anyway";
            return new CoreLayout(null, null, null, $"not pinned: {why}");
        }
        if (cores < 2)
        {
            return new CoreLayout(null, null, null, "not pinned: one core");
        }
        if (cores < MinCoresToPin)
        {
            return new CoreLayout("0", $"1-{cores - 1}", $"1-{cores - 1}",
                $"pinned on request: SUT on CPU 0, generator and PostgreSQL share CPUs 1-{cores - 1}");
        }
        var sutCores = cores / 2;
        var generatorCores = Math.Max(1, cores / 4);
        var sut = $"0-{sutCores - 1}";
        var generator = generatorCores == 1 ? $"{sutCores}" : $"{sutCores}-{sutCores + generatorCores - 1}";
        var database = $"{sutCores + generatorCores}-{cores - 1}";
        return new CoreLayout(sut, generator, database, $"SUT on CPUs {sut}, generator on {generator}, PostgreSQL on {database}");
    }

    private static string CpuModel()
    {
        try
        {
            var line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            return line?.Split(':', 2)[1].Trim() ?? RuntimeInformation.ProcessArchitecture.ToString();
        }
        catch (IOException)
        {
            return RuntimeInformation.ProcessArchitecture.ToString();
        }
    }

    /// <summary>A short command's output, or null when it fails, is missing, is cancelled or takes over 10 s (then it is killed).</summary>
    private static async Task<string?> RunAsync(string file, IReadOnlyList<string> args, CancellationToken ct)
    {
        try
        {
            var result = await ProcessRunner.RunAsync(file, args, null, TimeSpan.FromSeconds(10), ct);
            return result.ExitCode == 0 ? result.Output : null;
        }
        catch (Exception ex) when (ex is PerfLabException or OperationCanceledException)
        {
            return null;
        }
    }
}
