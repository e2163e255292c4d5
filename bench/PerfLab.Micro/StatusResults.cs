using System.Collections.Concurrent;

namespace PerfLab.Micro;

/// <summary>A result that carries nothing but a status code, so every instance for one code is interchangeable.</summary>
public sealed class StatusResult(int statusCode)
{
    public int StatusCode { get; } = statusCode;
}

// The ways of handing out a StatusResult that the seed compares. The known codes are the registered HTTP status codes;
// anything else (150) is unknown and shows what each strategy costs on a miss.
public static class StatusResults
{
    public static readonly int[] KnownCodes =
    [
        100, 101, 102, 103,
        200, 201, 202, 203, 204, 205, 206, 207, 208, 226,
        300, 301, 302, 303, 304, 305, 306, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 418, 421, 422, 423, 424, 426, 428, 429, 431, 451,
        500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
    ];

    private const int FirstCode = 100;
    private const int LastCode = 599;

    private static readonly Dictionary<int, StatusResult> Prebuilt = KnownCodes.ToDictionary(c => c, c => new StatusResult(c));
    private static readonly StatusResult?[] ByCode = new StatusResult?[LastCode - FirstCode + 1];
    // One array per hundred, each only as long as the highest known code of its group: smaller, but a miss for
    // codes past that end.
    private static readonly StatusResult?[][] ByGroup =
    [
        [],
        new StatusResult?[4],
        new StatusResult?[27],
        new StatusResult?[9],
        new StatusResult?[52],
        new StatusResult?[12],
    ];
    private static readonly ConcurrentDictionary<int, StatusResult> Concurrent = new();

    public static StatusResult NoCache(int code) => new(code);

    public static StatusResult StaticDictionary(int code) =>
        Prebuilt.TryGetValue(code, out var result) ? result : new StatusResult(code);

    public static StatusResult FixedSizeArray(int code)
    {
        if ((uint)(code - FirstCode) > LastCode - FirstCode)
        {
            return new StatusResult(code);
        }
        // A race only creates an extra equal instance, so no lock.
        return ByCode[code - FirstCode] ??= new StatusResult(code);
    }

    public static StatusResult FixedSizeArrayPerStatusGroup(int code)
    {
        var group = code / 100;
        if ((uint)group >= (uint)ByGroup.Length)
        {
            return new StatusResult(code);
        }
        var slots = ByGroup[group];
        var index = code - group * 100;
        if ((uint)index >= (uint)slots.Length)
        {
            return new StatusResult(code);
        }
        return slots[index] ??= new StatusResult(code);
    }

    public static StatusResult ConcurrentDictionary(int code) => Concurrent.GetOrAdd(code, static c => new StatusResult(c));

    // One field per known code, all built when the class is first touched.
    private static readonly StatusResult Static100 = new(100);
    private static readonly StatusResult Static101 = new(101);
    private static readonly StatusResult Static102 = new(102);
    private static readonly StatusResult Static103 = new(103);
    private static readonly StatusResult Static200 = new(200);
    private static readonly StatusResult Static201 = new(201);
    private static readonly StatusResult Static202 = new(202);
    private static readonly StatusResult Static203 = new(203);
    private static readonly StatusResult Static204 = new(204);
    private static readonly StatusResult Static205 = new(205);
    private static readonly StatusResult Static206 = new(206);
    private static readonly StatusResult Static207 = new(207);
    private static readonly StatusResult Static208 = new(208);
    private static readonly StatusResult Static226 = new(226);
    private static readonly StatusResult Static300 = new(300);
    private static readonly StatusResult Static301 = new(301);
    private static readonly StatusResult Static302 = new(302);
    private static readonly StatusResult Static303 = new(303);
    private static readonly StatusResult Static304 = new(304);
    private static readonly StatusResult Static305 = new(305);
    private static readonly StatusResult Static306 = new(306);
    private static readonly StatusResult Static307 = new(307);
    private static readonly StatusResult Static308 = new(308);
    private static readonly StatusResult Static400 = new(400);
    private static readonly StatusResult Static401 = new(401);
    private static readonly StatusResult Static402 = new(402);
    private static readonly StatusResult Static403 = new(403);
    private static readonly StatusResult Static404 = new(404);
    private static readonly StatusResult Static405 = new(405);
    private static readonly StatusResult Static406 = new(406);
    private static readonly StatusResult Static407 = new(407);
    private static readonly StatusResult Static408 = new(408);
    private static readonly StatusResult Static409 = new(409);
    private static readonly StatusResult Static410 = new(410);
    private static readonly StatusResult Static411 = new(411);
    private static readonly StatusResult Static412 = new(412);
    private static readonly StatusResult Static413 = new(413);
    private static readonly StatusResult Static414 = new(414);
    private static readonly StatusResult Static415 = new(415);
    private static readonly StatusResult Static416 = new(416);
    private static readonly StatusResult Static417 = new(417);
    private static readonly StatusResult Static418 = new(418);
    private static readonly StatusResult Static421 = new(421);
    private static readonly StatusResult Static422 = new(422);
    private static readonly StatusResult Static423 = new(423);
    private static readonly StatusResult Static424 = new(424);
    private static readonly StatusResult Static426 = new(426);
    private static readonly StatusResult Static428 = new(428);
    private static readonly StatusResult Static429 = new(429);
    private static readonly StatusResult Static431 = new(431);
    private static readonly StatusResult Static451 = new(451);
    private static readonly StatusResult Static500 = new(500);
    private static readonly StatusResult Static501 = new(501);
    private static readonly StatusResult Static502 = new(502);
    private static readonly StatusResult Static503 = new(503);
    private static readonly StatusResult Static504 = new(504);
    private static readonly StatusResult Static505 = new(505);
    private static readonly StatusResult Static506 = new(506);
    private static readonly StatusResult Static507 = new(507);
    private static readonly StatusResult Static508 = new(508);
    private static readonly StatusResult Static510 = new(510);
    private static readonly StatusResult Static511 = new(511);

    public static StatusResult StaticSwitch(int code) => code switch
    {
        100 => Static100,
        101 => Static101,
        102 => Static102,
        103 => Static103,
        200 => Static200,
        201 => Static201,
        202 => Static202,
        203 => Static203,
        204 => Static204,
        205 => Static205,
        206 => Static206,
        207 => Static207,
        208 => Static208,
        226 => Static226,
        300 => Static300,
        301 => Static301,
        302 => Static302,
        303 => Static303,
        304 => Static304,
        305 => Static305,
        306 => Static306,
        307 => Static307,
        308 => Static308,
        400 => Static400,
        401 => Static401,
        402 => Static402,
        403 => Static403,
        404 => Static404,
        405 => Static405,
        406 => Static406,
        407 => Static407,
        408 => Static408,
        409 => Static409,
        410 => Static410,
        411 => Static411,
        412 => Static412,
        413 => Static413,
        414 => Static414,
        415 => Static415,
        416 => Static416,
        417 => Static417,
        418 => Static418,
        421 => Static421,
        422 => Static422,
        423 => Static423,
        424 => Static424,
        426 => Static426,
        428 => Static428,
        429 => Static429,
        431 => Static431,
        451 => Static451,
        500 => Static500,
        501 => Static501,
        502 => Static502,
        503 => Static503,
        504 => Static504,
        505 => Static505,
        506 => Static506,
        507 => Static507,
        508 => Static508,
        510 => Static510,
        511 => Static511,
        _ => new StatusResult(code),
    };

    // One field per known code, each built the first time its code is asked for.
    private static StatusResult? _lazy100;
    private static StatusResult? _lazy101;
    private static StatusResult? _lazy102;
    private static StatusResult? _lazy103;
    private static StatusResult? _lazy200;
    private static StatusResult? _lazy201;
    private static StatusResult? _lazy202;
    private static StatusResult? _lazy203;
    private static StatusResult? _lazy204;
    private static StatusResult? _lazy205;
    private static StatusResult? _lazy206;
    private static StatusResult? _lazy207;
    private static StatusResult? _lazy208;
    private static StatusResult? _lazy226;
    private static StatusResult? _lazy300;
    private static StatusResult? _lazy301;
    private static StatusResult? _lazy302;
    private static StatusResult? _lazy303;
    private static StatusResult? _lazy304;
    private static StatusResult? _lazy305;
    private static StatusResult? _lazy306;
    private static StatusResult? _lazy307;
    private static StatusResult? _lazy308;
    private static StatusResult? _lazy400;
    private static StatusResult? _lazy401;
    private static StatusResult? _lazy402;
    private static StatusResult? _lazy403;
    private static StatusResult? _lazy404;
    private static StatusResult? _lazy405;
    private static StatusResult? _lazy406;
    private static StatusResult? _lazy407;
    private static StatusResult? _lazy408;
    private static StatusResult? _lazy409;
    private static StatusResult? _lazy410;
    private static StatusResult? _lazy411;
    private static StatusResult? _lazy412;
    private static StatusResult? _lazy413;
    private static StatusResult? _lazy414;
    private static StatusResult? _lazy415;
    private static StatusResult? _lazy416;
    private static StatusResult? _lazy417;
    private static StatusResult? _lazy418;
    private static StatusResult? _lazy421;
    private static StatusResult? _lazy422;
    private static StatusResult? _lazy423;
    private static StatusResult? _lazy424;
    private static StatusResult? _lazy426;
    private static StatusResult? _lazy428;
    private static StatusResult? _lazy429;
    private static StatusResult? _lazy431;
    private static StatusResult? _lazy451;
    private static StatusResult? _lazy500;
    private static StatusResult? _lazy501;
    private static StatusResult? _lazy502;
    private static StatusResult? _lazy503;
    private static StatusResult? _lazy504;
    private static StatusResult? _lazy505;
    private static StatusResult? _lazy506;
    private static StatusResult? _lazy507;
    private static StatusResult? _lazy508;
    private static StatusResult? _lazy510;
    private static StatusResult? _lazy511;

    public static StatusResult DynamicSwitch(int code) => code switch
    {
        100 => _lazy100 ??= new StatusResult(100),
        101 => _lazy101 ??= new StatusResult(101),
        102 => _lazy102 ??= new StatusResult(102),
        103 => _lazy103 ??= new StatusResult(103),
        200 => _lazy200 ??= new StatusResult(200),
        201 => _lazy201 ??= new StatusResult(201),
        202 => _lazy202 ??= new StatusResult(202),
        203 => _lazy203 ??= new StatusResult(203),
        204 => _lazy204 ??= new StatusResult(204),
        205 => _lazy205 ??= new StatusResult(205),
        206 => _lazy206 ??= new StatusResult(206),
        207 => _lazy207 ??= new StatusResult(207),
        208 => _lazy208 ??= new StatusResult(208),
        226 => _lazy226 ??= new StatusResult(226),
        300 => _lazy300 ??= new StatusResult(300),
        301 => _lazy301 ??= new StatusResult(301),
        302 => _lazy302 ??= new StatusResult(302),
        303 => _lazy303 ??= new StatusResult(303),
        304 => _lazy304 ??= new StatusResult(304),
        305 => _lazy305 ??= new StatusResult(305),
        306 => _lazy306 ??= new StatusResult(306),
        307 => _lazy307 ??= new StatusResult(307),
        308 => _lazy308 ??= new StatusResult(308),
        400 => _lazy400 ??= new StatusResult(400),
        401 => _lazy401 ??= new StatusResult(401),
        402 => _lazy402 ??= new StatusResult(402),
        403 => _lazy403 ??= new StatusResult(403),
        404 => _lazy404 ??= new StatusResult(404),
        405 => _lazy405 ??= new StatusResult(405),
        406 => _lazy406 ??= new StatusResult(406),
        407 => _lazy407 ??= new StatusResult(407),
        408 => _lazy408 ??= new StatusResult(408),
        409 => _lazy409 ??= new StatusResult(409),
        410 => _lazy410 ??= new StatusResult(410),
        411 => _lazy411 ??= new StatusResult(411),
        412 => _lazy412 ??= new StatusResult(412),
        413 => _lazy413 ??= new StatusResult(413),
        414 => _lazy414 ??= new StatusResult(414),
        415 => _lazy415 ??= new StatusResult(415),
        416 => _lazy416 ??= new StatusResult(416),
        417 => _lazy417 ??= new StatusResult(417),
        418 => _lazy418 ??= new StatusResult(418),
        421 => _lazy421 ??= new StatusResult(421),
        422 => _lazy422 ??= new StatusResult(422),
        423 => _lazy423 ??= new StatusResult(423),
        424 => _lazy424 ??= new StatusResult(424),
        426 => _lazy426 ??= new StatusResult(426),
        428 => _lazy428 ??= new StatusResult(428),
        429 => _lazy429 ??= new StatusResult(429),
        431 => _lazy431 ??= new StatusResult(431),
        451 => _lazy451 ??= new StatusResult(451),
        500 => _lazy500 ??= new StatusResult(500),
        501 => _lazy501 ??= new StatusResult(501),
        502 => _lazy502 ??= new StatusResult(502),
        503 => _lazy503 ??= new StatusResult(503),
        504 => _lazy504 ??= new StatusResult(504),
        505 => _lazy505 ??= new StatusResult(505),
        506 => _lazy506 ??= new StatusResult(506),
        507 => _lazy507 ??= new StatusResult(507),
        508 => _lazy508 ??= new StatusResult(508),
        510 => _lazy510 ??= new StatusResult(510),
        511 => _lazy511 ??= new StatusResult(511),
        _ => new StatusResult(code),
    };
}
