"""Theory half of the amplification pack: Frei, Chatterji, Bartlett, *Random Feature
Amplification: Feature Learning and Generalization in Neural Networks* (arXiv 2202.07626)."""
