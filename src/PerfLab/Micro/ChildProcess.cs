using System.Diagnostics;

namespace PerfLab.Micro;

// Runs a child process to its end, handing every output line to a callback. Cancelling kills the whole tree
// (BenchmarkDotNet starts one process per benchmark) and waits for it, so nothing is left running after Ctrl+C.
internal static class ChildProcess
{
    public static async Task<int> RunAsync(
        string fileName, IEnumerable<string> arguments, string workingDirectory, Action<string> onLine, CancellationToken ct)
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
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) { lock (gate) { onLine(e.Data); } } };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) { lock (gate) { onLine(e.Data); } } };
        try
        {
            process.Start();
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            throw new Cli.PerfLabException($"could not start '{fileName}': {ex.Message}", Cli.ExitCode.Environment, ex);
        }
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        try
        {
            await process.WaitForExitAsync(ct);
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
            throw;
        }
        // WaitForExitAsync returns before the redirected streams are drained; the parameterless wait drains them.
        process.WaitForExit();
        return process.ExitCode;
    }

    public static string DotnetHost =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";
}
