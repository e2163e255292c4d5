using PerfLab.Common;

namespace PerfLab.Tests.Packaging;

/// <summary>
/// scripts/setup.sh, which `./perflab` runs first: what a fresh Debian machine lacks, and what it does about it, root or
/// not. The install itself (apt-get) was checked by hand on a machine where npm and PostgreSQL had been removed.
/// </summary>
public sealed class FreshMachineSetupTests
{
    private static readonly string Script = Path.Combine(PerfLabPaths.RepoRoot, "scripts", "setup.sh");

    private static async Task<ProcessResult> RunAsync(params string[] args) =>
        await ProcessRunner.RunAsync("bash", [Script, .. args], null, TimeSpan.FromSeconds(60), CancellationToken.None);

    [Fact]
    public async Task Decide_RootMissingBoth_InstallsWithAptGetAndSaysSo()
    {
        var result = await RunAsync("--decide", "0", "npm", "postgresql");

        Assert.Equal("perflab: this machine lacks npm postgresql; installing with: apt-get update && apt-get install -y npm postgresql", result.Output);
    }

    [Fact]
    public async Task Decide_NotRoot_PrintsTheOneCommandToRunAsRootWithoutSudo()
    {
        var result = await RunAsync("--decide", "1000", "postgresql");

        Assert.Equal("perflab: this machine lacks postgresql; run this once as root, then run perflab again:\n    apt-get install -y postgresql", result.Output);
        Assert.DoesNotContain("sudo", result.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Decide_NothingMissing_SaysNothing()
    {
        var result = await RunAsync("--decide", "0");

        Assert.Equal(("", 0), (result.Output, result.ExitCode));
    }

    [Fact]
    public async Task Check_ThisMachineHasNpmAndPostgres_InstallsNothingAndSucceeds()
    {
        // The test machine has both (.ci/install-deps): the check must find them and stay silent.
        var result = await RunAsync("--need-postgres");

        Assert.Equal((0, ""), (result.ExitCode, result.Output));
    }
}
