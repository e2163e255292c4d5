using System.Globalization;
using System.Net;
using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.SutProcesses;

namespace PerfLab.Hosts;

/// <summary>
/// What the run asks of the database, wherever it is placed: the command line's server or data folder, the CPUs to pin it
/// to here.
/// </summary>
public sealed record DatabaseAsk(string? Connection, string? DataDir, string? DatabaseCpus);

/// <summary>The database of a run: the app's connection string to it, in words, and the role to stop when the run ends.</summary>
/// <param name="backends">Its backends' CPU, read by its role on a host of its own; null: found here from the connection
/// string when its server runs on this machine (else unmeasured).</param>
/// <param name="reset">Its settling and reset before the blocks, done by its role on a host of its own; null: done here
/// from the connection string.</param>
public sealed class RunDatabase(string connectionString, string description, IAsyncDisposable? role = null,
    IBackendsCpu? backends = null, ILabReset? reset = null) : IAsyncDisposable
{
    public static RunDatabase None { get; } = new("", "none (every experiment runs an app of its own)");

    public string ConnectionString => connectionString;

    public string Description => description;

    public IBackendsCpu? Backends => backends;

    public ILabReset? Reset => reset;

    /// <summary>Its role on a db host as the measurements watch it; null: no role of ours runs it.</summary>
    public DatabaseWatch? Watch => role is RoleSession session ? new DatabaseWatch(() => LostOf(session), session.EndedToken) : null;

    /// <summary>A db role's session lost mid-run, in words naming its host and what was lost there; null: it serves.</summary>
    internal static string? LostOf(RoleSession? session) => session?.LostMidRun is { } lost
        ? lost + "; PostgreSQL there is lost to this run, and its role stops it"
        : null;

    public ValueTask DisposeAsync() => role?.DisposeAsync() ?? ValueTask.CompletedTask;
}

/// <summary>
/// A db role's session as a measurement watches it: <see cref="Ended"/> cancelled when the session ends (its window
/// stops then), <see cref="Lost"/> the host and what was lost there when that was mid-run (the link cut, the role
/// silent or gone), for the run's failure; null while it serves.
/// </summary>
public sealed class DatabaseWatch(Func<string?> lost, CancellationToken ended)
{
    public string? Lost => lost();

    public CancellationToken Ended => ended;
}

/// <summary>
/// Where one role of a run runs: this machine (<see cref="Here"/>) or a host of a hosts file reached over ssh
/// (<see cref="OnHost"/>). The run asks its placements for the app it starts, the database it uses and what to
/// record of their hosts, never which one they are.
/// </summary>
public abstract record Placement(string Role)
{
    /// <summary>The host's name as the hosts file gives it ("local" for this machine).</summary>
    public abstract string HostName { get; }

    /// <summary>The address the other roles reach it at.</summary>
    public abstract string Address { get; }

    public abstract int Cores { get; }

    /// <summary>Its clock minus this machine's, with the uncertainty of the estimate.</summary>
    public abstract ClockOffset Clock { get; }

    /// <summary>Its processes are on this machine: counters, CPU cost and traces can be read here.</summary>
    public abstract bool ObservedHere { get; }

    /// <summary>The built-in SUT placed here, started by <paramref name="launchFor"/>'s launch (its log file given).</summary>
    public abstract IAppUnderTest BuiltInSut(Func<string, SutLaunch> launchFor, IProgress<string>? say);

    /// <summary>A user's app placed here, started with <paramref name="launch"/> (a project, a DLL, or a command).</summary>
    public abstract IAppUnderTest OwnApp(AppLaunch launch, IProgress<string>? say);

    /// <summary>PostgreSQL placed here, seeded and warmed, reachable from the app's placement.</summary>
    public abstract Task<RunDatabase> StartDatabaseAsync(DatabaseAsk ask, Placement app, IProgress<string> progress,
        CancellationToken ct);
}

/// <summary>This machine: what perflab has always done.</summary>
public sealed record Here(string Role) : Placement(Role)
{
    public override string HostName => HostRef.LocalName;
    public override string Address => "127.0.0.1";
    public override int Cores => Environment.ProcessorCount;
    public override ClockOffset Clock => new(0, 0, 0);
    public override bool ObservedHere => true;

    public override IAppUnderTest BuiltInSut(Func<string, SutLaunch> launchFor, IProgress<string>? say) => new BuiltInSut(launchFor);

    public override IAppUnderTest OwnApp(AppLaunch launch, IProgress<string>? say) => new ExternalApp(launch);

    /// <summary>perflab's own cluster on loopback, or the server the command line or the hosts file names.</summary>
    public override async Task<RunDatabase> StartDatabaseAsync(DatabaseAsk ask, Placement app, IProgress<string> progress,
        CancellationToken ct)
    {
        if (!app.ObservedHere && DatabaseTarget.ExternalConnectionString(ask.Connection) is null)
        {
            throw new PerfLabException(
                $"the app runs on {app.HostName} but PostgreSQL would run here, on loopback only: name its host in the hosts file " +
                "(db: HOST, or omit db: to run it on the app's host) or give db: { connection-string: \"...\" }.",
                ExitCode.Usage);
        }
        var (connection, description) = await DatabasePreparation.EnsureReadyAsync(ask.Connection, ask.DataDir, progress, ct);
        if (app.ObservedHere)
        {
            // An app elsewhere reaches the server on its own path, which this machine need not share.
            await DatabasePreparation.WarmAsync(connection, ct);
        }
        await DatabasePreparation.ApplyLayoutAsync(null, ask.DatabaseCpus, ask.Connection, ask.DataDir, ct);
        return new RunDatabase(connection, description);
    }
}

/// <summary>
/// A host of the hosts file, checked (reachable, runtime, clock) and holding perflab's build, started there as
/// <paramref name="Perflab"/>.
/// </summary>
internal sealed record OnHost(string Role, HostRef Host, SshClient Ssh, HostFacts Facts, ClockOffset Offset, string Perflab)
    : Placement(Role)
{
    private static readonly TimeSpan DatabaseReadyTimeout = TimeSpan.FromMinutes(5);

    public override string HostName => Host.Destination;
    public override string Address => Facts.Address;
    public override int Cores => Facts.Cores;
    public override ClockOffset Clock => Offset;
    public override bool ObservedHere => false;

    public override IAppUnderTest BuiltInSut(Func<string, SutLaunch> launchFor, IProgress<string>? say) =>
        new RemoteApp(this, logFile => new SutOrder(launchFor(logFile), SutOrder.NewToken()), say, FrameworkNeed.BuiltInSut,
            "the built-in SUT");

    /// <summary>
    /// Refuses, before anything starts, an app whose shared frameworks this host lacks (exit 4, naming the package to
    /// install): the runtime perflab runs on is not enough for a web app, which needs ASP.NET Core's of its major version.
    /// </summary>
    public void Require(IReadOnlyList<FrameworkNeed> needs, string app)
    {
        if (FrameworkNeed.FirstMissing(needs, Host, app, Facts.Frameworks ?? []) is { } missing)
        {
            throw new PerfLabException(missing, ExitCode.Unreachable);
        }
    }

    /// <summary>Its build copied to this host (once, by content) and started there by the app role.</summary>
    public override IAppUnderTest OwnApp(AppLaunch launch, IProgress<string>? say) => new RemoteOwnApp(this, launch, say);

    /// <summary>
    /// The db role on this host, open to the app's host alone: on its address when the app is elsewhere, on loopback
    /// when both share the host. Its session lasts as long as the run's database is held.
    /// </summary>
    public override async Task<RunDatabase> StartDatabaseAsync(DatabaseAsk ask, Placement app, IProgress<string> progress,
        CancellationToken ct)
    {
        if (app is not OnHost appHost)
        {
            throw AppHere(Host);
        }
        var shared = appHost.Host.Destination == Host.Destination;
        var listen = shared ? IPAddress.Loopback : await AddressOfAsync(this, ct);
        var allow = shared ? IPAddress.Loopback : await AddressOfAsync(appHost, ct);
        var command = $"{Perflab} host db --listen {listen} --allow {allow}";
        var session = RoleSession.Start(Ssh, Host, "PostgreSQL", command, null, progress);
        string[] ready;
        try
        {
            ready = (await session.WaitReadyAsync(DatabaseReadyTimeout, ct)).Split(' ');
        }
        catch (OperationCanceledException)
        {
            await session.DisposeAsync();
            throw;
        }
        // PORT VERSION PASSWORD: the password is the app's login's, made by the db role for this session.
        if (ready.Length != 3 || !int.TryParse(ready[0], CultureInfo.InvariantCulture, out var port))
        {
            await session.DisposeAsync();
            throw new PerfLabException($"{Host}: the db role answered '{ready[0]}...', not its port, version and login.",
                ExitCode.Failed);
        }
        var connection = new Npgsql.NpgsqlConnectionStringBuilder(ManagedCluster.ConnectionStringFor(port))
        {
            Host = listen.ToString(), Username = AppLogin.User, Password = ready[2],
        }.ConnectionString;
        return new RunDatabase(connection,
            $"perflab's PostgreSQL {ready[1]} on db host '{Host.Destination}' ({listen}:{port}), open to the app host ({allow}) only, "
                + $"as {AppLogin.User} with a password made for this run",
            session, new RemoteBackendsCpu(session), new RemoteLabReset(session));
    }

    /// <summary>Why PostgreSQL on <paramref name="db"/> cannot serve an app on this machine.</summary>
    public static PerfLabException AppHere(HostRef db) => new(
        $"PostgreSQL on {db} is open to the app's host only, but the app runs here: place the app on a host of the file too, " +
        "or the database here (db: local).",
        ExitCode.Usage);

    /// <summary>A host's address as an IP: PostgreSQL listens on it and pg_hba names it, so a name is resolved here first.</summary>
    internal static async Task<IPAddress> AddressOfAsync(Placement host, CancellationToken ct)
    {
        if (IPAddress.TryParse(host.Address, out var ip))
        {
            return ip;
        }
        var found = await Dns.GetHostAddressesAsync(host.Address, ct);
        return found.FirstOrDefault(a => a.AddressFamily == System.Net.Sockets.AddressFamily.InterNetwork) ?? found.FirstOrDefault()
            ?? throw new PerfLabException($"{host.Role} host '{host.HostName}': its address {host.Address} does not resolve.",
                ExitCode.Unreachable);
    }
}
