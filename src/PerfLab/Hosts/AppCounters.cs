using System.Text.Json;
using PerfLab.Common;
using PerfLab.Counters;

namespace PerfLab.Hosts;

/// <summary>
/// The app role's counters: EventPipe read here, on the app's host, where the SUT's diagnostics socket is. On
/// <c>counters OPTIONS</c> a collection starts, <c>counters-listening</c> goes out once it listens (see
/// <see cref="CounterOptions.Listening"/>) and each sample goes out as <c>sample JSON</c> as it is read; on
/// <c>counters-stop</c> the collection ends and the whole recording goes out as <c>recording JSON</c> (or
/// <c>counters-failed MESSAGE</c> when the process refused the session). On <c>cpu #ID</c> it answers <c>cpu #ID NANOSECONDS</c>
/// (<see cref="RoleAsk"/>), the CPU the kernel has charged the app so far (its cost per request, read at the measured window's edges).
/// </summary>
internal sealed class AppCounters(int pid, RoleLines lines)
{
    /// <summary>The request for the app's CPU clock (<see cref="RoleSession.Ask"/>), answered in nanoseconds or "gone".</summary>
    public const string CpuRequest = "cpu";

    private CancellationTokenSource? _stop;
    private Task? _running;

    public async Task HandleAsync(string line)
    {
        if (line.StartsWith("counters ", StringComparison.Ordinal))
        {
            Start(JsonSerializer.Deserialize<CounterOptions>(line["counters ".Length..], RoleLines.Json) ?? new CounterOptions());
        }
        else if (line == "counters-stop")
        {
            await StopAsync();
        }
        else if (RoleAsk.Parse(line) is { Kind: CpuRequest } ask)
        {
            lines.Answer(ask, CpuClock.ProcessNanoseconds(pid)?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "gone");
        }
    }

    private void Start(CounterOptions options)
    {
        if (_running is not null)
        {
            lines.Write("counters-failed", "a collection is already running");
            return;
        }
        var stop = _stop = new CancellationTokenSource();
        _running = Task.Run(async () =>
        {
            try
            {
                var live = new InlineProgress<CounterSample>(s => lines.Write("sample", JsonSerializer.Serialize(s, RoleLines.Json)));
                var listening = options with { Listening = () => lines.Write("counters-listening", "") };
                var recording = await CounterCollector.CollectAsync(pid, listening, live, stop.Token);
                lines.Write("recording", JsonSerializer.Serialize(recording, RoleLines.Json));
            }
            catch (PerfLabException ex)
            {
                lines.Write("counters-failed", ex.Message.Replace('\n', ' '));
            }
        }, CancellationToken.None);
    }

    /// <summary>Ends the collection running, if any, once its recording is sent.</summary>
    public async Task StopAsync()
    {
        if (_stop is null || _running is null)
        {
            return;
        }
        await _stop.CancelAsync();
        await _running;
        _stop.Dispose();
        (_stop, _running) = (null, null);
    }
}
