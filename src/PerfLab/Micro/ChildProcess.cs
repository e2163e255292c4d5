using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Micro;

// Runs a child process to its end, handing every output line to a callback. Cancelling kills the whole tree
// (BenchmarkDotNet starts one process per benchmark) and waits for it, so nothing is left running after Ctrl+C.
// A child that prints nothing for `silenceLimit` is taken for hung: its tree is killed the same way and a
// PerfLabException (inner TimeoutException) names the command, so `perflab micro` never waits forever on a build
// or a benchmark that stopped making progress.
internal static class ChildProcess
{
    public static async Task<int> RunAsync(string fileName, IEnumerable<string> arguments, string workingDirectory,
        TimeSpan silenceLimit, Action<string> onLine, CancellationToken ct)
    {
        var info = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true, // closed at once: a child that prompts gets end-of-input, not a hang
            UseShellExecute = false,
        };
        foreach (var a in arguments)
        {
            info.ArgumentList.Add(a);
        }

        using var process = new Process { StartInfo = info };
        var gate = new Lock();
        var lastOutput = Stopwatch.GetTimestamp();
        void Line(string? line)
        {
            if (line is not null)
            {
                Volatile.Write(ref lastOutput, Stopwatch.GetTimestamp());
                lock (gate)
                {
                    onLine(line);
                }
            }
        }
        process.OutputDataReceived += (_, e) => Line(e.Data);
        process.ErrorDataReceived += (_, e) => Line(e.Data);
        try
        {
            process.Start();
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            throw new PerfLabException($"could not start '{fileName}': {ex.Message}", ExitCode.Environment, ex);
        }
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        using var silent = new CancellationTokenSource();
        // Disposed before `silent` and awaited: DisposeAsync waits for a tick in flight, so no tick sees `silent` disposed.
        await using var watchdog = new Timer(_ =>
        {
            if (Stopwatch.GetElapsedTime(Volatile.Read(ref lastOutput)) > silenceLimit)
            {
                silent.Cancel();
            }
        }, null, TimeSpan.FromMilliseconds(200), TimeSpan.FromMilliseconds(200));
        using var either = CancellationTokenSource.CreateLinkedTokenSource(ct, silent.Token);
        try
        {
            await process.WaitForExitAsync(either.Token);
        }
        catch (OperationCanceledException)
        {
            try
            {
                process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
                // it exited on its own meanwhile
            }
            using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(5));
            await process.WaitForExitAsync(grace.Token).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            if (!ct.IsCancellationRequested)
            {
                var command = string.Join(" ", new[] { Path.GetFileName(fileName) }.Concat(info.ArgumentList.Take(3)));
                throw new PerfLabException(
                    $"'{command} ...' printed nothing for {DurationText.Format(silenceLimit)} and was stopped as hung.",
                    ExitCode.Environment, new TimeoutException());
            }
            throw;
        }
        // WaitForExitAsync returns before the redirected streams are drained; the parameterless wait drains them.
        process.WaitForExit();
        return process.ExitCode;
    }

    public static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";
}
