using System.Net;
using System.Text.Json.Serialization;
using PerfLab.Apps;
using PerfLab.SutProcesses;

namespace PerfLab.Hosts;

/// <summary>
/// What the app role starts on its host, sent by the controller as one JSON line: the built-in SUT's launch
/// (<see cref="SutOrder"/>) or a user's app whose build the controller copied there (<see cref="OwnAppOrder"/>). Each
/// gives the role an <see cref="IAppUnderTest"/> listening on the host's address, so the role serves either alike.
/// </summary>
[JsonPolymorphic(TypeDiscriminatorPropertyName = "app")]
[JsonDerivedType(typeof(SutOrder), "sut")]
[JsonDerivedType(typeof(OwnAppOrder), "own")]
internal abstract record AppOrder
{
    /// <summary>Whether the app serves HTTP/2 only (h2c), so a client must speak HTTP/2 to it.</summary>
    [JsonIgnore]
    public abstract bool Http2Only { get; }

    /// <summary>Headers the controller's requests to the app carry (<see cref="IRunningApp.RequestHeaders"/>).</summary>
    [JsonIgnore]
    public virtual IReadOnlyList<KeyValuePair<string, string>> RequestHeaders => [];

    /// <summary>The app as it starts on this host, listening on <paramref name="listen"/>.</summary>
    public abstract IAppUnderTest On(IPAddress listen);

    /// <summary>An address as a URL's host part.</summary>
    protected static string UrlHost(IPAddress ip) =>
        ip.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? $"[{ip}]" : ip.ToString();
}

/// <summary>
/// The built-in SUT, from the copy of it beside perflab's build on the host. On the host's address its
/// <c>/diagnostics/*</c> (load on demand) answer only requests carrying <paramref name="DiagnosticsToken"/>, made for
/// this start (<see cref="NewToken"/>): it travels in this order, over the ssh channel, into the SUT's environment.
/// </summary>
internal sealed record SutOrder(SutLaunch Launch, string? DiagnosticsToken = null) : AppOrder
{
    /// <summary>The SUT's own name (PerfLab.Sut's DiagnosticsAccess: perflab does not reference its assembly).</summary>
    internal const string TokenHeader = "X-PerfLab-Token";

    public override bool Http2Only => SutLaunch.IsHttp2Only(Launch.Settings);

    public override IReadOnlyList<KeyValuePair<string, string>> RequestHeaders =>
        DiagnosticsToken is { } token ? [new(TokenHeader, token)] : [];

    public static string NewToken() => Convert.ToHexString(System.Security.Cryptography.RandomNumberGenerator.GetBytes(16));

    public override IAppUnderTest On(IPAddress listen) => new BuiltInSut(logFile => Launch with
    {
        Urls = $"http://{UrlHost(listen)}:0",
        LogFile = logFile,
        CpuSet = null,
        DiagnosticsToken = DiagnosticsToken,
    });
}

/// <summary>
/// A user's app from its build, which the controller put in the host's builds folder under <paramref name="Build"/>
/// (<see cref="Deployment"/>): the DLL <paramref name="Dll"/> there, started with the variant's launch as locally.
/// </summary>
internal sealed record OwnAppOrder(AppLaunch Launch, string Build, string Dll) : AppOrder
{
    public override bool Http2Only => false;

    public override IAppUnderTest On(IPAddress listen) => new ExternalApp(
        Launch with { Source = new AppSource(AppSourceKind.Dll, Path.Combine(Deployment.FolderHere(Build), Dll)), CpuSet = null }, listen);
}
