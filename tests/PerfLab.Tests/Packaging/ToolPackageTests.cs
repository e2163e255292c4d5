using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Tests.Packaging;

/// <summary>
/// perflab as a .NET tool: packed, installed into a temporary tool path and run from outside the clone. The work is in
/// .ci/tool-check.sh (a person can run it too). It packs the build this test run already has (its configuration,
/// --no-build): packing compiles nothing again, which a Release pack did (perflab and the SUT, about 80 CPU-seconds).
/// </summary>
[Collection(CpuHeavy.B)]
public sealed class ToolPackageTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private static readonly TimeSpan Timeout = TimeSpan.FromMinutes(9);
#if DEBUG
    private const string Configuration = "Debug";
#else
    private const string Configuration = "Release";
#endif

    [Fact]
    public async Task ToolPackage_InstalledIntoATempToolPath_ListsAndRunsAnExperimentFromOutsideTheClone()
    {
        var db = await postgres.CreateDatabaseAsync();
        var cache = Directory.CreateTempSubdirectory("perflab-tool-cache-");
        try
        {
            var (code, stdout, stderr) = await RunScriptAsync(db, cache.FullName, "--smoke", "sleep-vs-delay",
                "--configuration", Configuration, "--no-build");

            Assert.True(code == 0, $"exit {code}\nstdout:\n{stdout}\nstderr:\n{stderr}");
            // `perflab list` found the experiments inside the package.
            Assert.Contains("serializer       seed 000", stdout);
            Assert.Contains("sleep-vs-delay", stdout);
            // The smoke run started the SUT from the package and measured both variants.
            Assert.Contains("[2/2] sleep-vs-delay", stdout);
            Assert.DoesNotContain("FAILED", stdout);
            // Its provenance names the package, not a clone's commit; the package's version is 0.1 and the commit count,
            // so a pack of newer code installs over an older one (`dotnet tool update`).
            var commits = (await ProcessRunner.RunAsync("git", ["-C", PerfLabPaths.RepoRoot, "rev-list", "--count", "HEAD"], null,
                TimeSpan.FromSeconds(30), CancellationToken.None)).Output;
            Assert.Contains($"(perflab 0.1.{commits} package)", stdout);
            Assert.Contains($"installing perflab 0.1.{commits} into", stdout);
        }
        finally
        {
            cache.Delete(recursive: true);
        }
    }

    private static async Task<(int Code, string Stdout, string Stderr)> RunScriptAsync(string db, string cache, params string[] args)
    {
        var script = Path.Combine(PerfLabPaths.RepoRoot, ".ci", "tool-check.sh");
        var info = new ProcessStartInfo("bash") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        info.ArgumentList.Add(script);
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        foreach (var name in info.Environment.Keys.Where(k => k.StartsWith("PERFLAB_", StringComparison.Ordinal)).ToList())
        {
            info.Environment.Remove(name);
        }
        info.Environment[PerfLabPaths.CacheDirVariable] = cache;
        info.Environment["PERFLAB_CONNECTION_STRING"] = db;
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(Timeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"tool-check.sh took more than {Timeout.TotalMinutes} minutes:\n{await stdout}\n{await stderr}");
        }
        return (process.ExitCode, await stdout, await stderr);
    }
}
