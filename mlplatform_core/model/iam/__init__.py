"""IAM as AWS accepts it and as the controllers need it: managed policies that exist, actions and condition keys that
exist, valid documents (managed_policies, actions, documents, proof); identity-policy evaluation (evaluate.py) and what
each controller needs granted (requirements.py)."""
