using System.Diagnostics;
using System.Globalization;
using PerfLab.Database;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// The db role in a namespace of its own, started over its sshd as a run starts it: from the app's namespace the
/// superuser is refused without a password (pg_hba names the app's login alone), the app's login gets in with the
/// password the role made for the session and reads the lab's tables, and can do nothing a superuser can; the db host's
/// link cut, the role stops PostgreSQL and ends within 15 s. Alone (the quiet collection): it starts a cluster and seeds it.
/// </summary>
[Collection(QuietCollection.Name)]
public sealed class DatabaseAccessTests
{
    [Fact]
    public async Task DbRole_AppHostGetsInWithTheSessionsPasswordAlone_NeverAsTheSuperuser()
    {
        using var lab = NetnsLab.Create(["app", "db"]);
        var (app, db) = (lab.Hosts["app"].Address, lab.Hosts["db"].Address);
        var command = $"exec \"$(command -v dotnet)\" {PerfLabProcess.CliDll} host db --listen {db} --allow {app}";
        using var role = Process.Start(SshInController(lab, "db", command))!;
        using var beat = new Timer(_ => Beat(role), null, TimeSpan.Zero, TimeSpan.FromSeconds(2));
        var said = new List<string>();
        var ready = await ReadyAsync(role, said);
        var (port, password) = (ready[0], ready[2]);

        var superuser = Psql(lab, db, port, "perflab", null, "SELECT 1");
        var reads = Psql(lab, db, port, AppLogin.User, password, "SELECT count(*) FROM \"Production\".\"Product\"");
        var program = Psql(lab, db, port, AppLogin.User, password, "COPY (SELECT 1) TO PROGRAM 'true'");
        var guessed = Psql(lab, db, port, AppLogin.User, AppLogin.NewPassword(), "SELECT 1");

        Assert.True(superuser.ExitCode != 0, superuser.ToString());
        Assert.Contains($"no pg_hba.conf entry for host \"{app}\", user \"perflab\"", superuser.Stderr, StringComparison.Ordinal);
        Assert.True(reads.ExitCode == 0, reads.ToString());
        Assert.Equal("504", reads.Stdout.Trim());
        Assert.True(program.ExitCode != 0, program.ToString());
        Assert.Contains("pg_execute_server_program", program.Stderr, StringComparison.Ordinal);
        Assert.Contains("password authentication failed", guessed.Stderr, StringComparison.Ordinal);
        // The password went out on the ready line alone: no other line, nor the server's log, holds it.
        Assert.DoesNotContain(said,
            l => l.Contains(password, StringComparison.Ordinal) && !l.StartsWith("ready ", StringComparison.Ordinal));
        var log = Path.Combine(lab.Folder, $"cache-{lab.Hosts["db"].Namespace}", "postgres", "server.log");
        Assert.DoesNotContain(password, await File.ReadAllTextAsync(log), StringComparison.Ordinal);
        // The db host's link cut, the session left open on both ends: the role hears no heartbeat and stops PostgreSQL.
        lab.CutLink("db");
        await HostsRunTests.AssertNothingLeftAsync(lab, "db");
    }

    /// <summary>The controller's heartbeat (Heartbeat.Line), as a run's session sends it.</summary>
    private static void Beat(Process role)
    {
        try
        {
            role.StandardInput.WriteLine("alive");
            role.StandardInput.Flush();
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or InvalidOperationException)
        {
        }
    }

    /// <summary>The role's lines until its ready line (PORT VERSION PASSWORD), within 5 minutes (a cold cluster is seeded).</summary>
    private static async Task<string[]> ReadyAsync(Process role, List<string> said)
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromMinutes(5));
        while (await role.StandardOutput.ReadLineAsync(cts.Token) is { } line)
        {
            said.Add(line);
            if (line.StartsWith("ready ", StringComparison.Ordinal))
            {
                return line["ready ".Length..].Split(' ');
            }
        }
        throw new InvalidOperationException($"the db role ended before it was ready:\n{string.Join('\n', said)}\n"
            + await role.StandardError.ReadToEndAsync());
    }

    /// <summary>ssh from the controller's namespace to <paramref name="host"/>, running <paramref name="command"/> there.</summary>
    internal static ProcessStartInfo SshInController(NetnsLab lab, string host, string command)
    {
        var info = new ProcessStartInfo("ip")
        {
            RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        foreach (var arg in new[] { "netns", "exec", lab.Controller, "ssh", "-F", lab.SshConfig, "-T", host, command })
        {
            info.ArgumentList.Add(arg);
        }
        return info;
    }

    /// <summary>psql in the app's namespace against the db host; the password, when given, in psql's environment.</summary>
    private static CliResult Psql(NetnsLab lab, string db, string port, string user, string? password, string sql)
    {
        var info = new ProcessStartInfo("ip") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[]
                 {
                     "netns", "exec", lab.Hosts["app"].Namespace, "psql", "-w", "-X", "-At", "-h", db, "-p", port, "-U", user,
                     "-d", PostgresConnections.DefaultDatabase, "-c", sql,
                 })
        {
            info.ArgumentList.Add(arg);
        }
        info.Environment.Remove("PGPASSWORD");
        if (password is not null)
        {
            info.Environment["PGPASSWORD"] = password;
        }
        using var psql = Process.Start(info)!;
        var stdout = psql.StandardOutput.ReadToEndAsync();
        var stderr = psql.StandardError.ReadToEnd();
        if (!psql.WaitForExit(30_000))
        {
            psql.Kill();
            throw new TimeoutException(string.Create(CultureInfo.InvariantCulture, $"psql did not end within 30 s: {sql}"));
        }
        return new CliResult(psql.ExitCode, stdout.Result, stderr);
    }
}
