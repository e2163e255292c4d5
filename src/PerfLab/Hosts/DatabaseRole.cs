using System.Globalization;
using System.Net;
using PerfLab.Common;
using PerfLab.Database;

namespace PerfLab.Hosts;

/// <summary>
/// The db role on its host (<c>perflab host db</c>): perflab's own PostgreSQL cluster (as the postgres user when run as
/// root, as locally), kept in this host's cache, listening on this host's address as well as loopback, pg_hba
/// accepting the app's host alone, as <see cref="AppLogin.User"/> with a password this role makes for the session (SCRAM);
/// seeded and warmed, then <c>ready PORT VERSION PASSWORD</c>: the password reaches the controller over this session
/// alone (never a command line, a file or a log line). It answers <c>backends-cpu #ID</c> (<see cref="RoleAsk"/>)
/// with the CPU clocks of the backends serving the app's host (<see cref="RemoteBackendsCpu"/>), and settles and
/// resets the lab's database before the blocks on request, as its superuser here (<see cref="RemoteLabReset"/>). When its session's
/// input ends (or Ctrl+C) the cluster is stopped. A cluster an earlier, killed session left running is restarted with this
/// session's access.
/// </summary>
internal static class DatabaseRole
{
    public const int DefaultPort = 5432;

    public static async Task<int> RunAsync(IPAddress listen, IPAddress allow, RoleLines lines, CancellationToken ct)
    {
        var cluster = new ManagedCluster(Path.Combine(RoleLines.Cache, "postgres"));
        try
        {
            if (cluster.GetStatus().Running)
            {
                lines.Write("say", "a PostgreSQL left running by an earlier session: restarting it");
                await cluster.StopAsync(ct);
            }
            lines.Write("say", $"starting PostgreSQL ({cluster.DataDir}), open to {allow} only...");
            // PostgreSQL's own port where it is free, so that perflab hosts check measures the app's path to it.
            var port = cluster.GetStatus().Port ?? (LoopbackPorts.IsFree(DefaultPort) ? DefaultPort : null);
            var status = (await cluster.StartAsync(port, ct, new NetworkAccess(listen, allow))).Status;
            try
            {
                await DatabasePreparation.SeedIfNeededAsync(status.ConnectionString!, lines.Say, ct);
                await DatabasePreparation.WarmAsync(status.ConnectionString!, ct);
                var password = AppLogin.NewPassword();
                await AppLogin.GrantAsync(status.ConnectionString!, password, ct);
                lines.Write("ready", string.Create(CultureInfo.InvariantCulture, $"{status.Port} {status.MajorVersion} {password}"));
                var postmaster = cluster.GetStatus().Pid ?? 0;
                var reset = new RemoteLabReset.OnHost(status.ConnectionString!, lines);
                await lines.EachLineAsync(async line =>
                {
                    if (RoleAsk.Parse(line) is { } ask)
                    {
                        if (ask.Kind == RemoteBackendsCpu.Request)
                        {
                            RemoteBackendsCpu.Answer(lines, ask, postmaster, allow);
                        }
                        await reset.HandleAsync(ask, ct);
                    }
                }, ct);
            }
            finally
            {
                await cluster.StopAsync(CancellationToken.None);
            }
        }
        catch (PerfLabException ex)
        {
            lines.Write("failed", ex.Message);
            return (int)ex.ExitCode;
        }
        catch (Npgsql.NpgsqlException ex)
        {
            lines.Write("failed", $"PostgreSQL: {ex.Message}");
            return (int)ExitCode.Environment;
        }
        return (int)ExitCode.Success;
    }
}
