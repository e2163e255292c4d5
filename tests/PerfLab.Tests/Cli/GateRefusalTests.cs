using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Tests.Cli;

/// <summary>
/// A gate that reads an interval (no-worse, change) on a run of one repetition is refused before anything is built,
/// started or loaded: exit 2, naming the profile that decides. Absolute gates still run with one repetition.
/// </summary>
public sealed class GateRefusalTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-gate-refusal-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Theory]
    [InlineData("no-worse", "--profile", "smoke", "the smoke profile runs gc once")]
    [InlineData("change>-5%", "--repeat", "1", "--repeat 1 runs gc once")]
    [InlineData("no-worse(3%)", "--repeat", "1", "--repeat 1 runs gc once")]
    public async Task Run_IntervalGateWithOneRepetition_ExitsWithUsageBeforeAnythingStarts(string gate, string option, string value,
        string why)
    {
        var output = Path.Combine(_dir.FullName, "never");

        var result = await PerfLabProcess.RunAsync("run", "gc", option, value, "--threshold", gate, "--out", output);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains($"threshold '{gate}' reads a change's 95 % interval, and {why}", result.Stderr, StringComparison.Ordinal);
        Assert.Contains("Use --profile quick", result.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Compare_NoWorseInTheSmokeProfile_IsRefusedBeforeTheAppIsBuilt()
    {
        var output = Path.Combine(_dir.FullName, "never");
        var app = Path.Combine(PerfLabPaths.RepoRoot, "samples", "TinyShop");

        var result = await PerfLabProcess.RunAsync("compare", app, "--url", "/report", "--variant", "a", "--variant", "b",
            "--profile", "smoke", "--threshold", "no-worse", "--out", output);

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("the smoke profile runs compare once", result.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("publishing", result.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(output));
    }

    [Fact]
    public async Task Run_NoWorseInTheFilesOwnThresholds_IsRefusedToo()
    {
        var folder = Directory.CreateDirectory(Path.Combine(_dir.FullName, "experiments")).FullName;
        var file = File.ReadAllText(Path.Combine(PerfLabPaths.RepoRoot, "samples", "TinyShop", "experiments", "caching.yaml"))
            .Replace("project: ..", $"project: {Path.Combine(PerfLabPaths.RepoRoot, "samples", "TinyShop")}", StringComparison.Ordinal);
        File.WriteAllText(Path.Combine(folder, "caching.yaml"), file + "thresholds: [no-worse]\n");

        var result = await PerfLabProcess.RunAsync("run", "caching", "--experiments-dir", folder, "--profile", "smoke",
            "--out", Path.Combine(_dir.FullName, "never"));

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("threshold 'no-worse' reads a change's 95 % interval, and the smoke profile runs caching once",
            result.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public void EnsureIntervals_AbsoluteGatesOrTwoBlocksOrInvocations_AreNotRefused()
    {
        var gc = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).Single(e => e.Name == "gc");
        IReadOnlyList<Threshold> absolute = [Threshold.Parse("p99<250ms"), Threshold.Parse("errors<1%")];
        IReadOnlyList<Threshold> interval = [Threshold.Parse("no-worse")];

        ThresholdOptions.EnsureIntervals(absolute, [gc], ProfileName.Smoke, repeat: null, invocations: 1);
        ThresholdOptions.EnsureIntervals(interval, [gc], ProfileName.Smoke, repeat: 2, invocations: 1);
        ThresholdOptions.EnsureIntervals(interval, [gc], ProfileName.Smoke, repeat: null, invocations: 3);
        ThresholdOptions.EnsureIntervals(interval, [gc], ProfileName.Quick, repeat: null, invocations: 1);
        Assert.Equal(ExitCode.Usage, Assert.Throws<PerfLabException>(
            () => ThresholdOptions.EnsureIntervals(interval, [gc], ProfileName.Smoke, repeat: null, invocations: 1)).ExitCode);
    }
}
