using System.Globalization;
using System.Net;
using Npgsql;
using PerfLab.Common;

namespace PerfLab.Database;

/// <summary>A PostgreSQL server on this machine whose backends can be told apart: its postmaster and the port it serves.</summary>
public sealed record LocalPostgres(int PostmasterPid, int Port);

/// <summary>
/// The backends of a PostgreSQL server on this machine, and which of them serve a given app. Every backend is a child
/// process of the postmaster holding one client connection; the app's end of that connection is a socket of the app's
/// whose remote port is the server's, so a backend serves the app when its socket's remote port is one of those
/// sockets' local ports. Read from /proc alone (no query), so it works for any app, and costs a few milliseconds.
/// </summary>
public static class PostgresBackends
{
    /// <summary>
    /// The server behind <paramref name="connectionString"/> when it runs on this machine and its processes are
    /// visible: asks one backend its pid, whose parent is the postmaster. Null otherwise (a remote server, another
    /// pid namespace, a refused connection), and the database's CPU then goes unmeasured.
    /// </summary>
    public static async Task<LocalPostgres?> FindAsync(string connectionString, CancellationToken ct)
    {
        try
        {
            await using var connection = await PostgresConnections.OpenAsync(connectionString, ct);
            await using var command = new NpgsqlCommand("SELECT pg_backend_pid()", connection);
            var backend = Convert.ToInt32(await command.ExecuteScalarAsync(ct), CultureInfo.InvariantCulture);
            var postmaster = ParentOf(backend);
            return postmaster is { } pid && ManagedCluster.IsPostgresProcess(pid) ? new LocalPostgres(pid, connection.Port) : null;
        }
        catch (Exception ex) when (ex is PerfLabException or NpgsqlException or IOException or FormatException)
        {
            return null;
        }
    }

    /// <summary>The postmaster's children now (backends, and its own workers: checkpointer, autovacuum ...).</summary>
    public static IReadOnlyList<int> Children(int postmasterPid)
    {
        try
        {
            var text = File.ReadAllText(string.Create(CultureInfo.InvariantCulture,
                $"/proc/{postmasterPid}/task/{postmasterPid}/children"));
            return text.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(p => int.Parse(p, CultureInfo.InvariantCulture)).ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    /// <summary>Which of <paramref name="candidates"/> (backend pids) hold a connection from <paramref name="appPid"/>.</summary>
    public static IReadOnlySet<int> ServingApp(LocalPostgres server, int appPid, IEnumerable<int> candidates)
    {
        var table = TcpSockets.Table(appPid);
        var appInodes = TcpSockets.InodesOf(appPid);
        var appPorts = table.Where(s => s.RemotePort == server.Port && appInodes.Contains(s.Inode)).Select(s => s.LocalPort).ToHashSet();
        var serving = new HashSet<int>();
        if (appPorts.Count == 0)
        {
            return serving;
        }
        var byInode = table.Where(s => s.LocalPort == server.Port && appPorts.Contains(s.RemotePort)).Select(s => s.Inode).ToHashSet();
        foreach (var pid in candidates)
        {
            if (TcpSockets.InodesOf(pid).Any(byInode.Contains))
            {
                serving.Add(pid);
            }
        }
        return serving;
    }

    /// <summary>
    /// The children of <paramref name="postmasterPid"/> serving <paramref name="client"/>, told by their process titles
    /// (<c>postgres: USER DB ADDRESS(PORT) STATE</c>): on the db host, where the app's sockets cannot be seen.
    /// </summary>
    public static IReadOnlyList<int> ServingClient(int postmasterPid, IPAddress client) =>
        [.. Children(postmasterPid).Where(pid => ClientOf(Title(pid)) is { } address && address.Equals(Unmapped(client)))];

    /// <summary>
    /// The client address a backend's process title names (<c>10.0.0.2(45678)</c>, <c>::1(45678)</c>); null for a
    /// Unix-socket client (<c>[local]</c>), a postmaster worker (checkpointer ...) or a title without one.
    /// </summary>
    public static IPAddress? ClientOf(string title)
    {
        foreach (var word in title.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            var open = word.LastIndexOf('(');
            if (open > 0 && word.EndsWith(')')
                && int.TryParse(word.AsSpan(open + 1, word.Length - open - 2), CultureInfo.InvariantCulture, out _)
                && IPAddress.TryParse(word[..open].Trim('[', ']'), out var address))
            {
                return Unmapped(address);
            }
        }
        return null;
    }

    // A server listening on IPv6 shows an IPv4 client as ::ffff:10.0.0.2.
    private static IPAddress Unmapped(IPAddress address) => address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address;

    // PostgreSQL writes its title over its argv: /proc/PID/cmdline, padded with NULs.
    private static string Title(int pid)
    {
        try
        {
            return File.ReadAllText(string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/cmdline")).Replace('\0', ' ').Trim();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return "";
        }
    }

    private static int? ParentOf(int pid)
    {
        // /proc/<pid>/stat: pid (comm) state ppid ...; the name may hold spaces, so count from its last ')'.
        var stat = File.ReadAllText(string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/stat"));
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        return fields.Length > 1 && int.TryParse(fields[1], CultureInfo.InvariantCulture, out var parent) ? parent : null;
    }
}
