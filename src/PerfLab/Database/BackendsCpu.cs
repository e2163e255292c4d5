using System.Globalization;

namespace PerfLab.Database;

/// <summary>
/// Where the CPU of the PostgreSQL backends serving an app is read: on this machine (<see cref="LocalBackendsCpu"/>),
/// or on the db host by its role (one request at each window edge). The cost meter reads it the same way either way.
/// </summary>
public interface IBackendsCpu
{
    /// <summary>The CPU clock (utime + stime, ns) of each backend that may serve the app now; null when it could not be read.</summary>
    IReadOnlyDictionary<int, long>? Read();

    /// <summary>Which of <paramref name="candidates"/> (read at the window's end) serve the app; asked right after the window.</summary>
    IReadOnlySet<int> Serving(IEnumerable<int> candidates);
}

/// <summary>
/// A server on this machine: every child of its postmaster read by pid, the app's own picked out after the window by
/// the connections the app holds (<see cref="PostgresBackends.ServingApp"/>).
/// </summary>
public sealed class LocalBackendsCpu(LocalPostgres server, int appPid) : IBackendsCpu
{
    public IReadOnlyDictionary<int, long>? Read() => BackendsCpu.Of(PostgresBackends.Children(server.PostmasterPid));

    public IReadOnlySet<int> Serving(IEnumerable<int> candidates) => PostgresBackends.ServingApp(server, appPid, candidates);
}

/// <summary>The CPU clocks of backends by pid, and their form on a role's line (<c>PID=NS PID=NS ...</c>).</summary>
public static class BackendsCpu
{
    /// <summary>Each of <paramref name="pids"/> still there, with its CPU clock in nanoseconds.</summary>
    public static Dictionary<int, long> Of(IEnumerable<int> pids)
    {
        var clocks = new Dictionary<int, long>();
        foreach (var pid in pids)
        {
            if (Common.CpuClock.ProcessNanoseconds(pid) is { } ns)
            {
                clocks[pid] = ns;
            }
        }
        return clocks;
    }

    public static string Format(IReadOnlyDictionary<int, long> clocks) =>
        string.Join(' ', clocks.Select(c => string.Create(CultureInfo.InvariantCulture, $"{c.Key}={c.Value}")));

    /// <summary>The clocks a role sent; null when the line is not of that form.</summary>
    public static Dictionary<int, long>? Parse(string line)
    {
        var clocks = new Dictionary<int, long>();
        foreach (var pair in line.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            var parts = pair.Split('=');
            if (parts.Length != 2 || !int.TryParse(parts[0], CultureInfo.InvariantCulture, out var pid)
                || !long.TryParse(parts[1], CultureInfo.InvariantCulture, out var ns))
            {
                return null;
            }
            clocks[pid] = ns;
        }
        return clocks;
    }
}
