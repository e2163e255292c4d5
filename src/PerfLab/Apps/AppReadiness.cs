using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.SutProcesses;

namespace PerfLab.Apps;

/// <summary>Waits until a started app answers its readiness path with 2xx, and finds the .NET process to attach to.</summary>
public static class AppReadiness
{
    private static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(100);

    /// <returns>The pid of the app's .NET process: the started one, or the first .NET process below it.</returns>
    /// <exception cref="PerfLabException">The app exited first, or did not answer 2xx in time; with the tail of its log.</exception>
    public static async Task<int> WaitAsync(Process process, Uri address, string readyPath, TimeSpan timeout, string logFile,
        CancellationToken ct)
    {
        using var client = new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(5) };
        var clock = Stopwatch.StartNew();
        var last = "no answer yet";
        while (clock.Elapsed < timeout)
        {
            ct.ThrowIfCancellationRequested();
            if (process.HasExited)
            {
                throw new PerfLabException(
                    $"the app exited with code {process.ExitCode} before it was ready at {address}. Its log ({logFile}) ends with:" +
                    Environment.NewLine + SutProcess.Tail(logFile, 15), ExitCode.Failed);
            }
            try
            {
                using var response = await client.GetAsync(readyPath, ct);
                if (response.IsSuccessStatusCode)
                {
                    return DotnetPid(process.Id);
                }
                last = $"HTTP {(int)response.StatusCode}";
            }
            catch (HttpRequestException ex)
            {
                last = ex.Message;
            }
            catch (TaskCanceledException) when (!ct.IsCancellationRequested)
            {
                last = "a request timed out";
            }
            await Task.Delay(Poll, ct);
        }
        throw new PerfLabException(
            $"the app was not ready within {DurationText.Format(timeout)}: GET {readyPath} on {address} gave {last} " +
            "(an app that ignores --urls needs app.bind: env or {port} in its command; a path that answers 2xx goes in app.ready.path, " +
            $"a slower start in app.ready.timeout). Its log ({logFile}) ends with:" +
            Environment.NewLine + SutProcess.Tail(logFile, 15), ExitCode.Failed);
    }

    /// <summary>The started process if it is .NET (has a diagnostics port), else its first .NET descendant, else itself.</summary>
    public static int DotnetPid(int pid)
    {
        var published = DotnetProcesses.PublishedProcesses();
        if (published.Contains(pid))
        {
            return pid;
        }
        return published.FirstOrDefault(candidate => IsDescendant(candidate, pid)) is var found and > 0 ? found : pid;
    }

    private static bool IsDescendant(int candidate, int ancestor)
    {
        var current = candidate;
        for (var depth = 0; current > 1 && depth < 16; depth++)
        {
            current = ParentOf(current);
            if (current == ancestor)
            {
                return true;
            }
        }
        return false;
    }

    private static int ParentOf(int pid)
    {
        try
        {
            // /proc/PID/stat: "pid (comm) state ppid ...": the command may hold spaces, so count from its closing parenthesis.
            var stat = File.ReadAllText($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat");
            var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
            return int.Parse(fields[1], CultureInfo.InvariantCulture);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException)
        {
            return 0;
        }
    }
}
