using System.Globalization;
using System.Net;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.Sut;

namespace PerfLab.Hosts;

/// <summary>
/// The app role on its host (<c>perflab host app</c>): reads the launch (one JSON line: the variant's settings and
/// environment, the connection string to the database host), starts the built-in SUT listening on this host's address,
/// answers <c>ready URL LOG</c>, reads its counters, traces and JIT events on request (<see cref="AppCounters"/>,
/// <see cref="AppTrace"/>, <see cref="AppJitWatch"/>: EventPipe works on the app's own host), and stops it when its
/// session's input ends. An app that exits by itself sends the tail of its log and ends the session, which the
/// controller sees as the app having crashed.
/// </summary>
internal static class AppRole
{
    public static async Task<int> RunAsync(IPAddress listen, RoleLines lines, CancellationToken ct)
    {
        var json = await lines.Input.ReadLineAsync(ct);
        if (json is null)
        {
            return (int)ExitCode.Interrupted;
        }
        var launch = JsonSerializer.Deserialize<SutLaunch>(json)
            ?? throw new PerfLabException("expected the app's launch as one JSON line.", ExitCode.Usage);
        var host = listen.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? $"[{listen}]" : listen.ToString();
        var logFile = Path.Combine(RoleLines.Cache, "logs",
            string.Create(CultureInfo.InvariantCulture, $"app-{DateTime.UtcNow:yyyyMMdd-HHmmss-fff}.log"));
        launch = launch with { Urls = $"http://{host}:0", LogFile = logFile };
        SutProcess sut;
        try
        {
            sut = await SutProcess.StartAsync(launch, progress: new InlineProgress<string>(m => lines.Write("say", m)), ct: ct);
        }
        catch (PerfLabException ex)
        {
            lines.Write("failed", ex.Message);
            return (int)ex.ExitCode;
        }
        await using (sut)
        {
            lines.Write("ready", $"{sut.BaseAddress} {logFile}");
            var exited = sut.Process.WaitForExitAsync(CancellationToken.None);
            var counters = new AppCounters(sut.Pid, lines);
            var trace = new AppTrace(sut.Pid, lines);
            var jit = new AppJitWatch(sut.Pid, lines);
            var served = lines.EachLineAsync(async line =>
            {
                await counters.HandleAsync(line);
                await trace.HandleAsync(line);
                await jit.HandleAsync(line);
            }, ct);
            var first = await Task.WhenAny(served, exited);
            await counters.StopAsync();
            await trace.AbandonAsync();
            await jit.StopAsync();
            if (first == exited)
            {
                lines.Write("log", File.Exists(logFile) ? string.Join('\n', File.ReadLines(logFile).TakeLast(30)) : "(no log)");
                lines.Write("failed",
                    string.Create(CultureInfo.InvariantCulture, $"the app exited by itself (exit code {sut.Process.ExitCode})"));
                return (int)ExitCode.Failed;
            }
        }
        return (int)ExitCode.Success;
    }
}
