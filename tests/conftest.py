from verify.profiles import load_profile

load_profile()
