using System.ComponentModel;
using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace PerfLab.Common;

internal sealed record ProcessResult(int ExitCode, string Output);

// The one way perflab starts a child process. RunAsync runs one to its end: standard input closed at once (a child
// that prompts gets end-of-input, not a hang), both output streams drained line by line, the whole tree killed on
// Ctrl+C, on timeout or after too long a silence. Launch starts a long-running one (the SUT) whose output the child
// itself sends elsewhere, so that no pump in perflab competes with the load generator for CPU.
//
// Not CliWrap: it hides the Process object, which the SUT's callers read (HasExited, ExitCode, WaitForExitAsync); its
// graceful stop is an interrupt where the SUT has always had SIGTERM; and a detached SUT must outlive perflab without
// pipes. It would cover only the run-to-completion half, leaving two mechanisms where the design wants one.
internal static class ProcessRunner
{
    public static bool IsRoot => Environment.IsPrivilegedProcess && !OperatingSystem.IsWindows();

    // The dotnet host that runs perflab (the SDK sets DOTNET_HOST_PATH), else `dotnet` from PATH.
    public static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";

    // Runs a PostgreSQL program (or any short tool) with a bounded wait, messages in English, as
    // runAsUser if given; returns its exit code and its stdout followed by its stderr.
    public static async Task<ProcessResult> RunAsync(string program, IReadOnlyList<string> args, string? runAsUser,
        TimeSpan timeout, CancellationToken ct)
    {
        var stdout = new StringBuilder();
        var stderr = new StringBuilder();
        var spec = new ProcessSpec(program, args)
        {
            RunAsUser = runAsUser,
            Timeout = timeout,
            // Messages in English whatever the user's locale, so they can be quoted in errors.
            Environment = new Dictionary<string, string> { ["LC_ALL"] = "C", ["LANG"] = "C" },
            OnOutputLine = line => stdout.Append(line).Append('\n'),
            OnErrorLine = line => stderr.Append(line).Append('\n'),
        };
        try
        {
            var exitCode = await RunAsync(spec, ct);
            return new ProcessResult(exitCode, (stdout.ToString() + stderr).Trim());
        }
        catch (PerfLabException ex) when (ex.InnerException is Win32Exception cause)
        {
            throw new PerfLabException($"cannot run {(runAsUser is null ? program : "runuser")}: {cause.Message}",
                ExitCode.Environment, cause);
        }
    }

    // Runs spec to its end and returns its exit code.
    // A PerfLabException when it could not start (inner Win32Exception) or outlived its timeout or silence limit
    // (inner TimeoutException, so callers can tell a hang from a failure); an OperationCanceledException when ct
    // fired. Either way its tree has been killed first.
    public static async Task<int> RunAsync(ProcessSpec spec, CancellationToken ct)
    {
        using var process = new Process { StartInfo = StartInfo(spec, redirect: true) };
        var gate = new Lock();
        var lastOutput = Stopwatch.GetTimestamp();
        DataReceivedEventHandler Forward(Action<string>? onLine) => (_, e) =>
        {
            if (e.Data is null)
            {
                return;
            }
            Volatile.Write(ref lastOutput, Stopwatch.GetTimestamp());
            lock (gate)
            {
                onLine?.Invoke(e.Data);
            }
        };
        process.OutputDataReceived += Forward(spec.OnOutputLine);
        process.ErrorDataReceived += Forward(spec.OnErrorLine);
        Start(process, spec);
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        using var timedOut = new CancellationTokenSource();
        if (spec.Timeout is { } timeout)
        {
            timedOut.CancelAfter(timeout);
        }
        using var silent = new CancellationTokenSource();
        // Disposed before `silent` and awaited: DisposeAsync waits for a tick in flight, so no tick sees `silent` disposed.
        await using var watchdog = spec.SilenceLimit is { } limit
            ? new Timer(_ =>
            {
                if (Stopwatch.GetElapsedTime(Volatile.Read(ref lastOutput)) > limit)
                {
                    silent.Cancel();
                }
            }, null, TimeSpan.FromMilliseconds(200), TimeSpan.FromMilliseconds(200))
            : null;
        using var any = CancellationTokenSource.CreateLinkedTokenSource(ct, timedOut.Token, silent.Token);
        try
        {
            await process.WaitForExitAsync(any.Token);
        }
        catch (OperationCanceledException)
        {
            await ProcessTree.KillAsync(process);
            ct.ThrowIfCancellationRequested();
            throw silent.IsCancellationRequested ? Hung(spec) : TimedOut(spec);
        }
        // WaitForExitAsync returns before the redirected streams are drained; the parameterless wait drains them.
        process.WaitForExit();
        return process.ExitCode;
    }

    // Starts a long-running process with perflab's own standard streams (nothing redirected, nothing pumped); the
    // caller owns the returned Process and stops it with ProcessTree.
    public static Process Launch(ProcessSpec spec)
    {
        var process = new Process { StartInfo = StartInfo(spec, redirect: false) };
        try
        {
            Start(process, spec);
            return process;
        }
        catch
        {
            process.Dispose();
            throw;
        }
    }

    private static ProcessStartInfo StartInfo(ProcessSpec spec, bool redirect)
    {
        var info = new ProcessStartInfo
        {
            RedirectStandardOutput = redirect,
            RedirectStandardError = redirect,
            RedirectStandardInput = redirect,
            UseShellExecute = false,
        };
        if (spec.WorkingDirectory is not null)
        {
            info.WorkingDirectory = spec.WorkingDirectory;
        }
        if (spec.RunAsUser is not null)
        {
            info.FileName = "runuser";
            foreach (var arg in new[] { "-u", spec.RunAsUser, "--", spec.FileName })
            {
                info.ArgumentList.Add(arg);
            }
        }
        else
        {
            info.FileName = spec.FileName;
        }
        foreach (var arg in spec.Arguments)
        {
            info.ArgumentList.Add(arg);
        }
        ChildEnvironment.Apply(info, spec.Environment);
        return info;
    }

    private static void Start(Process process, ProcessSpec spec)
    {
        try
        {
            process.Start();
        }
        catch (Win32Exception ex)
        {
            throw new PerfLabException($"could not start '{process.StartInfo.FileName}': {ex.Message}", ExitCode.Environment, ex);
        }
    }

    private static PerfLabException Hung(ProcessSpec spec) => new(
        $"'{spec.ShortCommand} ...' printed nothing for {DurationText.Format(spec.SilenceLimit!.Value)} and was stopped as hung.",
        ExitCode.Environment, new TimeoutException());

    private static PerfLabException TimedOut(ProcessSpec spec) => new(
        string.Create(CultureInfo.InvariantCulture,
            $"{Path.GetFileName(spec.FileName)} did not finish within {spec.Timeout!.Value.TotalSeconds:0} s."),
        ExitCode.Environment, new TimeoutException());
}
