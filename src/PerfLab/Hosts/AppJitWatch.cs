using System.Globalization;
using PerfLab.Counters;

namespace PerfLab.Hosts;

/// <summary>
/// The app role's watch on the app's JIT (<see cref="JitEventSession"/>, read on this host, where its diagnostics
/// socket is): on <c>jit-watch</c> it answers <c>jit-watching</c> (or <c>jit-failed MESSAGE</c>) and streams each
/// compiled method as <c>jit UNIXMS TIER</c> (this host's clock, the tier's number) and each stop of the background
/// tier-1 worker as <c>jit-queue N</c> as they are read, so the controller's warm-up can see tiering settle; on
/// <c>jit-stop</c> the session ends.
/// </summary>
internal sealed class AppJitWatch(int pid, RoleLines lines)
{
    private JitEventSession? _session;

    public async Task HandleAsync(string line)
    {
        if (line == "jit-watch")
        {
            await StartAsync();
        }
        else if (line == "jit-stop")
        {
            await StopAsync();
        }
    }

    private async Task StartAsync()
    {
        if (_session is not null)
        {
            lines.Write("jit-failed", "a watch is already running");
            return;
        }
        _session = await JitEventSession.StartAsync(pid,
            (unixMs, tier) => lines.Write("jit", string.Create(CultureInfo.InvariantCulture, $"{unixMs} {(int)tier}")),
            queued => lines.Write("jit-queue", queued.ToString(CultureInfo.InvariantCulture)),
            CancellationToken.None);
        if (_session is null)
        {
            lines.Write("jit-failed", string.Create(CultureInfo.InvariantCulture, $"process {pid} refused an EventPipe session"));
        }
        else
        {
            lines.Write("jit-watching", "");
        }
    }

    /// <summary>Ends the watch running, if any.</summary>
    public async Task StopAsync()
    {
        if (_session is { } session)
        {
            _session = null;
            await session.DisposeAsync();
        }
    }
}
