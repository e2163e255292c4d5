using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Experiments.Running;

/// <summary>
/// The CPU an app costs per request, read from the kernel at the very edges of each measured window (the load engine
/// calls it as the window starts and ends): the app's process CPU clock, and the CPU clock of every child of the
/// PostgreSQL postmaster; after the window, the backends serving the app are picked out by their connections (see
/// <see cref="PostgresBackends"/>). CPU time is not charged while a neighbour holds the core, so this figure moves
/// much less than throughput on a shared machine; it does move when the core itself runs slower.
/// </summary>
/// <param name="appPid">The app's process.</param>
/// <param name="database">The PostgreSQL server on this machine it uses; null: the app's own CPU only.</param>
/// <param name="appCpu">Reads the app's CPU clock; null: its process's clock here (an app on another host reads its own).</param>
public sealed class CostMeter(int appPid, LocalPostgres? database, Func<long?>? appCpu = null) : IWindowProbe
{
    private readonly Func<long?> _appCpu = appCpu ?? (() => CpuClock.ProcessNanoseconds(appPid));

    private Snapshot? _start;
    private Snapshot? _end;

    public void WindowStarted() => _start = Read();

    public void WindowEnded() => _end = Read();

    /// <summary>
    /// The window just measured, its <paramref name="requests"/> given by the load's count; null when no window was
    /// measured or the app was gone at one of its edges. Call it right after the load run: the backends are matched
    /// to the app by the connections they hold now.
    /// </summary>
    public CpuWindow? Take(long requests)
    {
        var (start, end) = (_start, _end);
        (_start, _end) = (null, null);
        if (start?.AppNs is not { } appFrom || end?.AppNs is not { } appTo || end.Timestamp <= start.Timestamp)
        {
            return null;
        }
        var seconds = Stopwatch.GetElapsedTime(start.Timestamp, end.Timestamp).TotalSeconds;
        double? db = null;
        var ended = 0;
        if (database is not null)
        {
            var ours = PostgresBackends.ServingApp(database, appPid, end.Backends.Keys);
            // A backend born in the window counts from zero: all it ran, it ran inside the window.
            db = ours.Sum(pid => end.Backends[pid] - start.Backends.GetValueOrDefault(pid)) / 1e9;
            ended = start.Backends.Keys.Count(pid => !end.Backends.ContainsKey(pid));
        }
        return new CpuWindow(seconds, requests, (appTo - appFrom) / 1e9, db, ended);
    }

    private Snapshot Read()
    {
        var timestamp = Stopwatch.GetTimestamp();
        var app = _appCpu();
        var backends = new Dictionary<int, long>();
        if (database is not null)
        {
            foreach (var pid in PostgresBackends.Children(database.PostmasterPid))
            {
                if (CpuClock.ProcessNanoseconds(pid) is { } ns)
                {
                    backends[pid] = ns;
                }
            }
        }
        return new Snapshot(timestamp, app, backends);
    }

    private sealed record Snapshot(long Timestamp, long? AppNs, Dictionary<int, long> Backends);
}
