using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Load;
using PerfLab.Results;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// The CPU an app costs per request, read from the kernel at the very edges of each measured window (the load engine
/// calls it as the window starts and ends): the app's process CPU clock, and the CPU clock of the PostgreSQL backends
/// that may serve it, wherever they run (<see cref="IBackendsCpu"/>: read here by pid, or by the db role on its host);
/// after the window, those serving the app are picked out. CPU time is not charged while a neighbour holds the core, so
/// this figure moves much less than throughput on a shared machine; it does move when the core itself runs slower, so
/// for an app on this machine each window also records how much slower the cores ran in it (<see cref="CoreSpeed"/>).
/// </summary>
/// <param name="appCpu">Reads the app's CPU clock (its process here, or its role on its host).</param>
/// <param name="database">The backends of the PostgreSQL server it uses; null: the app's own CPU only.</param>
/// <param name="speed">This machine's cores' speed, when the app and its database run on it; null: not sampled.</param>
public sealed class CostMeter(Func<long?> appCpu, IBackendsCpu? database, CoreSpeed? speed = null) : IWindowProbe
{
    /// <summary>An app on this machine, its database (when given) on this machine too.</summary>
    public CostMeter(int appPid, LocalPostgres? database)
        : this(() => CpuClock.ProcessNanoseconds(appPid), database is null ? null : new LocalBackendsCpu(database, appPid))
    {
    }

    private Snapshot? _start;
    private Snapshot? _end;

    public void WindowStarted() => _start = Read();

    public void WindowEnded() => _end = Read();

    /// <summary>
    /// The window just measured, its <paramref name="requests"/> given by the load's count; null when no window was
    /// measured or the app was gone at one of its edges. Call it right after the load run: the backends are matched
    /// to the app by the connections they hold now. The database part is null when its backends could not be read
    /// at an edge.
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
        if (database is not null && start.Backends is { } from && end.Backends is { } to)
        {
            var ours = database.Serving(to.Keys);
            // A backend born in the window counts from zero: all it ran, it ran inside the window.
            db = ours.Sum(pid => to[pid] - from.GetValueOrDefault(pid)) / 1e9;
            ended = from.Keys.Count(pid => !to.ContainsKey(pid));
        }
        var slowdown = speed is not null && start.Speed is { } speedFrom && end.Speed is { } speedTo
            ? speed.SlowdownBetween(speedFrom, speedTo) : null;
        return new CpuWindow(seconds, requests, (appTo - appFrom) / 1e9, db, ended, slowdown);
    }

    private Snapshot Read() => new(Stopwatch.GetTimestamp(), appCpu(), database?.Read(), speed?.Read());

    private sealed record Snapshot(long Timestamp, long? AppNs, IReadOnlyDictionary<int, long>? Backends, CoreSpeed.Reading? Speed);
}
