//! Every atom the NIF returns: fixed constants only, never minted from input.

rustler::atoms! {
    ok,
    error,
    null,
    bool,
    int,
    float,
    string,
    array,
    object,
    corruption_report,
    some,
    none,
    dirty,
}
