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
    public async Task Decide_ForTestsNotRoot_NamesTheOneCommandAndTheTestsToRunAgain()
    {
        var result = await RunAsync("--decide", "1000", "--for-tests", "chromium", "python3-junitparser");

        Assert.Equal("perflab: this machine lacks chromium python3-junitparser; run this once as root, then run the tests again:\n"
            + "    apt-get install -y chromium python3-junitparser", result.Output);
    }

    [Fact]
    public async Task Check_ForTestsOnThisMachine_FindsEverythingTheTestsUseAndSucceeds()
    {
        // `dotnet test` ran this before the tests (tests/Directory.Build.targets): everything is there now, and the
        // check finds each package by what the tests use (/usr/sbin/sshd, chromium, the system Python's junitparser).
        var result = await RunAsync("--for-tests");

        Assert.Equal((0, ""), (result.ExitCode, result.Output));
        Assert.True(File.Exists("/usr/sbin/sshd") && File.Exists("/usr/bin/chromium"), "sshd and chromium are installed");
    }

    [Fact]
    public async Task Check_UnknownArgument_ExitsTwoNamingIt()
    {
        var result = await RunAsync("--for-test");

        Assert.Equal(2, result.ExitCode);
        Assert.Contains("unknown argument '--for-test'", result.Output, StringComparison.Ordinal);
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
        // The test machine has both (`dotnet test` installed them: tests/Directory.Build.targets): the check must find them and stay silent.
        var result = await RunAsync("--need-postgres");

        Assert.Equal((0, ""), (result.ExitCode, result.Output));
    }
}
