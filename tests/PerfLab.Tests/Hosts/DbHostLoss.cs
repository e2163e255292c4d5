using System.Diagnostics;
using System.Globalization;
using PerfLab.Database;

namespace PerfLab.Tests.Hosts;

/// <summary>
/// The db host mid-run, on a lab whose db namespace holds a seeded cluster already (<see cref="HostsRunTests"/>'s
/// earlier runs): from the app's namespace the superuser is refused without a password (pg_hba names the app's login
/// alone), the app's login gets in with the password the SUT was handed and reads the lab's tables, and can do nothing
/// a superuser can; then the db host's link cut inside its namespace (no FIN, no RST, the sessions left open on both
/// ends): its role hears no heartbeat and stops PostgreSQL, nothing of ours is left there within 15 s, and the
/// controller, hearing none back, fails the run naming the db host and what was lost there.
/// </summary>
internal static class DbHostLoss
{
    // The placed experiment with a 20 s window, longer than a cut takes to be noticed on both ends (8 s without a
    // heartbeat): the window is cut short then.
    private static readonly string Experiment = HostsRunTests.Experiment
        .Replace("name: placed", "name: cut", StringComparison.Ordinal)
        .Replace("smoke: { warmup: 1s, duration: 2s", "smoke: { warmup: 1s, duration: 20s", StringComparison.Ordinal);

    public static async Task CutMidRunAsync(NetnsLab lab)
    {
        var experiments = Directory.CreateDirectory(Path.Combine(lab.Folder, "experiments")).FullName;
        await File.WriteAllTextAsync(Path.Combine(experiments, "cut.yaml"), Experiment);
        var hosts = HostsCheckTests.Write(lab, "ssh-config: ./ssh_config\napp: app\ndb: db\nload: [local]\n");
        var output = Path.Combine(lab.Folder, "cut");
        var run = HostsCheckTests.RunInController(lab, "run", "cut", "--experiments-dir", experiments, "--profile", "smoke",
            "--no-trace", "--hosts", hosts, "--out", output);
        var (port, password) = await SutsDatabaseAsync(lab, run);
        await Task.Delay(TimeSpan.FromSeconds(2));   // into the measured window (1 s of warm-up)
        Assert.False(run.IsCompleted, run.IsCompleted ? (await run).ToString() : "");

        AssertOnlyTheAppsLoginGetsIn(lab, port, password);
        lab.CutLink("db");
        var cut = Stopwatch.StartNew();
        while (lab.ProcessesBesidesSshd("db").Count > 0 && cut.Elapsed < TimeSpan.FromSeconds(15))
        {
            await Task.Delay(100);
        }
        var left = lab.ProcessesBesidesSshd("db");
        var result = await run;

        Assert.Empty(left);
        Assert.True(result.ExitCode != 0, result.ToString());
        const string Lost = "db host 'db': lost mid-run: PostgreSQL ";
        var said = result.Stdout + result.Stderr;
        Assert.True(said.Contains(Lost, StringComparison.Ordinal), result.ToString());
        Assert.True(said.Contains("PostgreSQL there is lost to this run, and its role stops it", StringComparison.Ordinal),
            result.ToString());
        Assert.Contains(Lost, await File.ReadAllTextAsync(Path.Combine(output, "report.md")), StringComparison.Ordinal);
        // The password went over the ssh sessions alone: neither the controller's output, nor a file of the results,
        // nor the server's log holds it.
        Assert.DoesNotContain(password, result.Stdout + result.Stderr, StringComparison.Ordinal);
        var log = Path.Combine(lab.CacheOf(lab.Hosts["db"].Namespace), "postgres", "server.log");
        Assert.All(Directory.EnumerateFiles(output, "*", SearchOption.AllDirectories).Append(log),
            f => Assert.DoesNotContain(password, File.ReadAllText(f), StringComparison.Ordinal));
        await HostsRunTests.AssertNothingLeftAsync(lab, "app", "db");
    }

    /// <summary>From the app's namespace: the superuser refused, the app's login reading and refused a program, a guess refused.</summary>
    private static void AssertOnlyTheAppsLoginGetsIn(NetnsLab lab, string port, string password)
    {
        var (app, db) = (lab.Hosts["app"].Address, lab.Hosts["db"].Address);
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
    }

    /// <summary>
    /// The port and password the SUT in the app namespace was handed (read from its environment, as root may), once the
    /// first measured run's SUT runs (the second SUT process: the first primes caches for 3 s): within 2 minutes, or the
    /// run ending first.
    /// </summary>
    private static async Task<(string Port, string Password)> SutsDatabaseAsync(NetnsLab lab, Task<CliResult> run)
    {
        var deadline = DateTime.UtcNow.AddMinutes(2);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        while (!run.IsCompleted && DateTime.UtcNow < deadline)
        {
            foreach (var pid in lab.ProcessesBesidesSshd("app").Select(p => p.Split(' ')[0]).Where(p => !seen.Contains(p)))
            {
                try
                {
                    var connection = File.ReadAllText($"/proc/{pid}/environ").Split('\0')
                        .FirstOrDefault(v => v.StartsWith("ConnectionStrings__AdventureWorks=", StringComparison.Ordinal));
                    if (connection is not null && seen.Add(pid) && seen.Count == 2)
                    {
                        var builder = new Npgsql.NpgsqlConnectionStringBuilder(connection[(connection.IndexOf('=') + 1)..]);
                        return (builder.Port.ToString(CultureInfo.InvariantCulture), builder.Password!);
                    }
                }
                catch (IOException)
                {
                    // It ended between the listing and the read.
                }
            }
            await Task.Delay(100);
        }
        var said = run.IsCompleted ? (await run).ToString() : "";
        throw new TimeoutException($"no measured SUT with a database appeared in the app namespace:\n{said}");
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
