using System.Security.Cryptography;
using System.Text;

namespace PerfLab.Sut.Diagnostics;

/// <summary>
/// Who may ask <c>/diagnostics/*</c> (endpoints that hold a lock, allocate, sleep in the database: a way for anyone who
/// reaches them to load the host). On loopback, as a local run binds the SUT, anyone on this machine already could. On
/// another host's address (perflab's app role), the controller makes a token for the run and hands it over the ssh
/// channel in the SUT's environment (<see cref="TokenKey"/>, never a command line): requests there without it in
/// <see cref="Header"/> are answered 404, as if the endpoints were not there.
/// </summary>
public static class DiagnosticsAccess
{
    /// <summary>The configuration key (environment: <c>Diagnostics__Token</c>) holding the run's token.</summary>
    public const string TokenKey = "Diagnostics:Token";

    /// <summary>The request header that carries the token: perflab's generators and clients send it.</summary>
    public const string Header = "X-PerfLab-Token";

    private static readonly PathString Guarded = "/diagnostics";

    public static IApplicationBuilder UseDiagnosticsAccess(this IApplicationBuilder app, IConfiguration configuration)
    {
        if (configuration[TokenKey] is not { Length: > 0 } token)
        {
            return app;
        }
        var expected = Encoding.UTF8.GetBytes(token);
        return app.Use((context, next) =>
        {
            if (context.Request.Path.StartsWithSegments(Guarded) && !Carries(context.Request, expected))
            {
                context.Response.StatusCode = StatusCodes.Status404NotFound;
                return Task.CompletedTask;
            }
            return next(context);
        });
    }

    // Compared in constant time: how long a refusal takes says nothing of how much of a guess was right.
    internal static bool Carries(HttpRequest request, byte[] expected) =>
        request.Headers.TryGetValue(Header, out var sent) && sent.Count == 1
        && CryptographicOperations.FixedTimeEquals(Encoding.UTF8.GetBytes(sent[0] ?? ""), expected);
}
