using PerfLab.Common;

namespace PerfLab.Hosts;

/// <summary>Where a run places each role: the app, the database and the load, from a hosts file or all on this machine.</summary>
/// <param name="Load">Where each run's load is sent from: this process, or one or more generators.</param>
/// <param name="DatabaseConnection">The hosts file's db: { connection-string: ... }: a server perflab starts nothing for.</param>
public sealed record Placements(Placement App, Placement Db, LoadSource Load, string? DatabaseConnection = null)
{
    public static Placements Local { get; } = new(new Here("app"), new Here("db"), LoadSource.Here);

    /// <summary>
    /// Every role on a host of its own or here (each generator), for the provenance; the db left out when it is a server
    /// given by its connection string.
    /// </summary>
    public IReadOnlyList<Placement> Recorded => DatabaseConnection is null ? [App, Db, .. Load.Hosts] : [App, .. Load.Hosts];

    /// <summary>Some role runs elsewhere than this machine.</summary>
    public bool AnyElsewhere => !App.ObservedHere || !Db.ObservedHere || Load.Hosts.Any(h => !h.ObservedHere);

    /// <summary>
    /// The file's hosts checked before anything starts there (reachable with the key, a runtime that runs perflab, the
    /// clock offset; every failing host named at once, exit 4) and perflab copied where missing.
    /// </summary>
    public static async Task<Placements> ResolveAsync(HostsFile file, IProgress<string> say, CancellationToken ct)
    {
        if (file.App.IsLocal && file.Load.FirstOrDefault(h => !h.IsLocal) is { } generator)
        {
            throw new PerfLabException(
                $"{file.Path}: {generator} cannot reach an app on this machine (it listens on loopback): place the app on a host " +
                "of the file (app: HOST), or send the load from here (load: [local]).",
                ExitCode.Usage);
        }
        if (file.App.IsLocal && file.Db is DbOnHost { Host: { IsLocal: false } dbHost })
        {
            throw OnHost.AppHere(dbHost);
        }
        var ssh = new SshClient(file.SshConfig);
        var placed = await PrepareAsync(ssh, file.Hosts, say, ct);
        Placement Place(HostRef host) =>
            placed.TryGetValue(host.Destination, out var on) ? on with { Role = host.Role } : new Here(host.Role);
        var load = file.Load is [{ IsLocal: true }] ? LoadSource.Here : await GeneratorsAsync(file, ssh, placed, ct);
        return file.Db switch
        {
            DbOnHost { Host: var db } => new Placements(Place(file.App), Place(db), load),
            DbExternal { ConnectionString: var cs } => new Placements(Place(file.App), new Here("db"), load, cs),
            _ => throw new InvalidOperationException("a db placement of an unknown kind"),
        };
    }

    /// <summary>
    /// `perflab load --hosts`: the file's generators alone, checked and deployed as a run's are (the app host is the
    /// target, not a role of this process), so both verbs prepare generators by one route.
    /// </summary>
    public static async Task<LoadSource> GeneratorsAsync(HostsFile file, IProgress<string> say, CancellationToken ct)
    {
        var ssh = new SshClient(file.SshConfig);
        return await GeneratorsAsync(file, ssh, await PrepareAsync(ssh, file.Load, say, ct), ct, say);
    }

    /// <summary>
    /// The hosts other than this machine checked before anything starts there (every failing host named at once, exit
    /// 4), then perflab copied where missing; each one's facts said.
    /// </summary>
    private static async Task<Dictionary<string, OnHost>> PrepareAsync(SshClient ssh, IEnumerable<HostRef> hosts, IProgress<string> say,
        CancellationToken ct)
    {
        var remote = hosts.Where(h => !h.IsLocal).DistinctBy(h => h.Destination).ToList();
        var checks = await Task.WhenAll(remote.Select(h => HostsCheck.CheckOneAsync(ssh, h, ct)));
        if (checks.Any(c => c.Failure is not null))
        {
            throw new PerfLabException(string.Join(Environment.NewLine, checks.Where(c => c.Failure is not null).Select(c => c.Failure))
                + Environment.NewLine + "nothing was started.", ExitCode.Unreachable);
        }
        var deployed = await Task.WhenAll(remote.Select(h => Deployment.EnsureAsync(ssh, h, ct)));
        var placed = new Dictionary<string, OnHost>(StringComparer.Ordinal);
        for (var i = 0; i < remote.Count; i++)
        {
            var (host, check, (command, copied)) = (remote[i], checks[i].Check!, deployed[i]);
            say.Report(string.Create(System.Globalization.CultureInfo.InvariantCulture,
                $"{host}: {check.Facts.Address}, {check.Facts.Cores} cores, clock offset {check.Clock.OffsetMs:+0.000;-0.000} ms " +
                $"± {check.Clock.UncertaintyMs:0.000}; perflab {(copied ? "copied" : "already there")}"));
            placed[host.Destination] = new OnHost(host.Role, host, ssh, check.Facts, check.Clock, command);
        }
        return placed;
    }

    /// <summary>
    /// The file's generators, from the hosts checked and deployed above; "local" among them runs perflab here, on this
    /// machine's clock.
    /// </summary>
    /// <param name="say">Where the generators' own lines go during the load; null: nowhere.</param>
    private static async Task<LoadSource> GeneratorsAsync(HostsFile file, SshClient ssh, Dictionary<string, OnHost> placed,
        CancellationToken ct, IProgress<string>? say = null)
    {
        var generators = new List<Generator>();
        var hosts = new List<Placement>();
        foreach (var h in file.Load)
        {
            if (placed.TryGetValue(h.Destination, out var on))
            {
                generators.Add(new Generator(h, on.Perflab, on.Offset));
                hosts.Add(on with { Role = h.Role });
                continue;
            }
            var (here, _) = await Deployment.EnsureAsync(ssh, h, ct);
            generators.Add(new Generator(h, here, new ClockOffset(0, 0, 0)));
            hosts.Add(new Here(h.Role));
        }
        return new LoadFromHosts(new Generators(ssh, generators), hosts, say);
    }
}
