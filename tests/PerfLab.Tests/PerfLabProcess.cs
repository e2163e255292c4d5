using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Tests;

internal sealed record CliResult(int ExitCode, string Stdout, string Stderr)
{
    public override string ToString() => $"exit {ExitCode}\nstdout:\n{Stdout}\nstderr:\n{Stderr}";
}

// Runs the built perflab.dll as a child process: a real CLI run with its own environment and console, so tests can
// set PERFLAB_* variables without disturbing tests running in parallel in this process.
internal static class PerfLabProcess
{
    // A net for a run that hangs, not a bound on its time: the longest run a test asks for takes about 75 s alone, and
    // a busy CI host (load average 30-40 on 2 cores) has stretched one past 180 s (SweepRunTests).
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(360);

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

    /// <summary>The built perflab.dll, for a test that starts it as the command another verb launches (`-- dotnet perflab.dll ...`).</summary>
    public static string CliDll => CliPath.Value;

    /// <summary>
    /// How to start the CLI with <paramref name="args"/>: output redirected, every PERFLAB_* setting of the developer
    /// removed, and a cache folder of its own (see <see cref="TestCaches"/>) unless <paramref name="environment"/>
    /// names one, so no test reads the developer's noise floors, cluster or SUT registry, nor another test's.
    /// </summary>
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
        foreach (var name in info.Environment.Keys.Where(k => k.StartsWith("PERFLAB_", StringComparison.Ordinal)).ToList())
        {
            info.Environment.Remove(name);
        }
        // Without PERFLAB_CACHE_DIR the cache would follow XDG_CACHE_HOME, the developer's own.
        info.Environment.Remove("XDG_CACHE_HOME");
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }
        if (!info.Environment.ContainsKey(PerfLabPaths.CacheDirVariable))
        {
            info.Environment[PerfLabPaths.CacheDirVariable] = TestCaches.NewFolder();
        }
        return info;
    }

    /// <summary>
    /// <paramref name="info"/> started through `env --default-signal=INT`, for a test that sends the CLI SIGINT (Ctrl+C).
    /// A shell's background job or nohup starts the test host with SIGINT ignored; an ignored signal stays ignored across
    /// fork and exec, and .NET then installs no Ctrl+C handler, so the signal would never arrive and the test would wait in
    /// vain. env restores the default disposition and then execs, so the process id is still the CLI's.
    /// </summary>
    public static ProcessStartInfo WithSigintDefault(ProcessStartInfo info)
    {
        info.ArgumentList.Insert(0, info.FileName);
        info.ArgumentList.Insert(0, "--default-signal=INT");
        info.FileName = "env";
        return info;
    }

    public static Task<CliResult> RunAsync(IReadOnlyDictionary<string, string>? environment, params string[] args) =>
        RunWithinAsync(Timeout, environment, args);

    /// <summary>As <see cref="RunAsync(IReadOnlyDictionary{string, string}?, string[])"/>, for a run that may take longer.</summary>
    public static async Task<CliResult> RunWithinAsync(TimeSpan timeout, IReadOnlyDictionary<string, string>? environment,
        params string[] args)
    {
        var info = StartInfo(environment, args);
        var ownCache = environment?.ContainsKey(PerfLabPaths.CacheDirVariable) != true;
        try
        {
            using var process = Process.Start(info)!;
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var cts = new CancellationTokenSource(timeout);
            try
            {
                await process.WaitForExitAsync(cts.Token);
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException($"perflab {string.Join(' ', args)} did not finish within {timeout}.");
            }
            return new CliResult(process.ExitCode, await stdout, await stderr);
        }
        finally
        {
            if (ownCache)
            {
                TestCaches.Delete(info.Environment[PerfLabPaths.CacheDirVariable]!);
            }
        }
    }

    public static Task<CliResult> RunAsync(params string[] args) => RunAsync(null, args);
}

// The cache folders PerfLabProcess gives each CLI it starts. They live under one folder per test host, removed when
// the host exits; folders left by a host that was killed are removed by the next one. RunAsync removes its own at once.
internal static class TestCaches
{
    private static readonly string Parent = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "perflab-test-caches");

    private static readonly Lazy<string> Root = new(() =>
    {
        RemoveLeftovers();
        var root = System.IO.Path.Combine(Parent, Environment.ProcessId.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Directory.CreateDirectory(root);
        AppDomain.CurrentDomain.ProcessExit += (_, _) => Delete(root);
        return root;
    });

    public static string NewFolder()
    {
        var folder = System.IO.Path.Combine(Root.Value, Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(folder);
        // Traversable by the postgres user when tests run as root: a managed cluster may live in it.
        if (!OperatingSystem.IsWindows())
        {
            foreach (var path in new[] { Parent, Root.Value, folder })
            {
                File.SetUnixFileMode(path, TempFolder.Traversable);
            }
        }
        return folder;
    }

    public static void Delete(string folder)
    {
        try
        {
            Directory.Delete(folder, recursive: true);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // Best effort: a process the test started may still hold a file.
        }
    }

    private static void RemoveLeftovers()
    {
        if (!Directory.Exists(Parent))
        {
            return;
        }
        foreach (var folder in Directory.EnumerateDirectories(Parent))
        {
            if (int.TryParse(System.IO.Path.GetFileName(folder), out var pid) && !IsRunning(pid))
            {
                Delete(folder);
            }
        }
    }

    private static bool IsRunning(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
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
            File.SetUnixFileMode(Path, Traversable);
        }
    }

    public const UnixFileMode Traversable = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
        | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute;

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
