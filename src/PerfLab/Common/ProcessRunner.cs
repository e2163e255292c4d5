using System.Diagnostics;

namespace PerfLab.Common;

internal sealed record ProcessResult(int ExitCode, string Output);

// Runs the PostgreSQL programs with a bounded wait, as the `postgres` system user when perflab runs as root
// (initdb, pg_ctl and postgres refuse to run as root).
internal static class ProcessRunner
{
    public static bool IsRoot => Environment.IsPrivilegedProcess && !OperatingSystem.IsWindows();

    public static async Task<ProcessResult> RunAsync(string program, IReadOnlyList<string> args, string? runAsUser,
        TimeSpan timeout, CancellationToken ct)
    {
        var info = new ProcessStartInfo
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        if (runAsUser is not null)
        {
            info.FileName = "runuser";
            info.ArgumentList.Add("-u");
            info.ArgumentList.Add(runAsUser);
            info.ArgumentList.Add("--");
            info.ArgumentList.Add(program);
        }
        else
        {
            info.FileName = program;
        }
        foreach (var arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        // Messages in English whatever the user's locale, so they can be quoted in errors.
        info.Environment["LC_ALL"] = "C";
        info.Environment["LANG"] = "C";

        using var process = new Process { StartInfo = info };
        try
        {
            process.Start();
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            throw new PerfLabException($"cannot run {info.FileName}: {ex.Message}", ExitCode.Environment, ex);
        }
        process.StandardInput.Close();
        var stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        var stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        using var timeoutCts = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeoutCts.CancelAfter(timeout);
        try
        {
            await process.WaitForExitAsync(timeoutCts.Token);
        }
        catch (OperationCanceledException)
        {
            try
            {
                process.Kill(entireProcessTree: true);
            }
            catch (InvalidOperationException)
            {
                // Exited meanwhile.
            }
            ct.ThrowIfCancellationRequested();
            throw new PerfLabException(
                $"{Path.GetFileName(program)} did not finish within {timeout.TotalSeconds:0} s.", ExitCode.Environment);
        }
        var output = ((await stdout) + (await stderr)).Trim();
        return new ProcessResult(process.ExitCode, output);
    }
}
