"""IAM as AWS accepts it: managed policies that exist, actions and condition keys that exist, valid documents."""
