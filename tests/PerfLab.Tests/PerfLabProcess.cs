using System.Diagnostics;
using System.Reflection;
using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests;

internal sealed record CliResult(int ExitCode, string Stdout, string Stderr)
{
    public override string ToString() => $"exit {ExitCode}\nstdout:\n{Stdout}\nstderr:\n{Stderr}";
}

// Runs the built perflab.dll as a child process: a real CLI run with its own environment and console, so tests can
// set PERFLAB_* variables without disturbing tests running in parallel in this process.
internal static class PerfLabProcess
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(180);

    // perflab's own build output, not the copy in the test folder: that one lacks perflab's runtime config (the test
    // project gets Microsoft.Extensions.* from the ASP.NET Core framework, perflab from packages).
    private static readonly Lazy<string> CliPath = new(() =>
    {
        var repoRoot = PerfLabPaths.RepoRoot;
#if DEBUG
        const string configuration = "Debug";
#else
        const string configuration = "Release";
#endif
        var path = System.IO.Path.Combine(repoRoot, "src", "PerfLab", "bin", configuration, "net10.0", "perflab.dll");
        return File.Exists(path) ? path : throw new FileNotFoundException("perflab is not built", path);
    });

    /// <summary>How to start the CLI with <paramref name="args"/>: output redirected, the developer's PERFLAB_* settings removed.</summary>
    public static ProcessStartInfo StartInfo(IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        var info = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        info.ArgumentList.Add(CliPath.Value);
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        // The developer's own settings must not leak into a test.
        foreach (var name in new[] { "PERFLAB_DATA_DIR", "PERFLAB_PG_BINDIR", "PERFLAB_CONNECTION_STRING" })
        {
            info.Environment.Remove(name);
        }
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }
        return info;
    }

    public static async Task<CliResult> RunAsync(IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        var info = StartInfo(environment, args);
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cts = new CancellationTokenSource(Timeout);
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"perflab {string.Join(' ', args)} did not finish within {Timeout}.");
        }
        return new CliResult(process.ExitCode, await stdout, await stderr);
    }

    public static Task<CliResult> RunAsync(params string[] args) => RunAsync(null, args);
}

// A temp folder (traversable by the postgres user when tests run as root) deleted when the test ends.
internal sealed class TempFolder : IDisposable
{
    public TempFolder()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "perflab-dbtest-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(Path);
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(Path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
                | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
        }
    }

    public string Path { get; }

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Best effort.
        }
    }
}
